import FoundationEssentials
import Testing
@testable import HealthAnalysis

/// Minutes written as a picture: `z` asleep-like (still, sleeping pulse), `q` quiet wake (still,
/// pulse 20 % up), `w` walking, `.` not worn.
private func night(_ picture: String, sleepingPulse: Double = 52) -> [SleepEpoch] {
    picture.compactMap { character -> SleepEpoch? in
        switch character {
        case "z": SleepEpoch(steps: 0, heartRate: sleepingPulse)
        case "q": SleepEpoch(steps: 0, heartRate: sleepingPulse * 1.2)
        case "w": SleepEpoch(steps: 100, heartRate: sleepingPulse * 1.6)
        case "t": SleepEpoch(steps: 1, heartRate: sleepingPulse)
        case ".": .missing
        default: nil
        }
    }
}

private func picture(_ states: [SleepState]) -> String {
    String(states.map { switch $0 { case .asleep: "S"; case .awake: "A"; case .unknown: "." } })
}

@Suite("Sleep scoring: Cole–Kripke on steps, the pulse as second signal, Webster's rescoring")
struct SleepScorerTests {
    @Test("Still minutes at the sleeping pulse are asleep; walking wakes, and so do the minutes before it by the window")
    func stillIsAsleepWalkingIsAwake() {
        let states = SleepScorer.score(night(String(repeating: "z", count: 30) + "wwww" + String(repeating: "z", count: 30)))
        // Walking at minutes 30–33; the window reaches 2 minutes back (A₊₁, A₊₂) and 4 forward
        // (A₋₁…A₋₄), so 28–37 score awake; Webster's rule (b) then turns 3 more into wake.
        #expect(picture(states) == String(repeating: "S", count: 28) + String(repeating: "A", count: 13) + String(repeating: "S", count: 23))
    }

    @Test("A turn in bed (one step) stays asleep: D = 0.23")
    func oneStepIsATurnInBed() {
        let states = SleepScorer.score(night(String(repeating: "z", count: 20) + "t" + String(repeating: "z", count: 20)))
        #expect(states.allSatisfy { $0 == .asleep })
    }

    @Test("Lying awake without a step is scored awake by the pulse (actigraphy alone would call it sleep)")
    func quietWakeByPulse() {
        let epochs = night(String(repeating: "z", count: 60) + String(repeating: "q", count: 30) + String(repeating: "z", count: 60))
        let states = SleepScorer.score(epochs)
        #expect(states[65..<88].allSatisfy { $0 == .awake })
        #expect(states[0..<58].allSatisfy { $0 == .asleep })
        #expect(states[100...].allSatisfy { $0 == .asleep })
        // Without the pulse (steps only) the same minutes all score asleep: the second signal matters.
        let stepsOnly = epochs.map { SleepEpoch(steps: $0.steps, heartRate: 52) }
        #expect(SleepScorer.score(stepsOnly).allSatisfy { $0 == .asleep })
    }

    @Test("Minutes without a pulse (band off) are unknown, never asleep")
    func notWornIsUnknown() {
        let states = SleepScorer.score(night(String(repeating: "z", count: 10) + String(repeating: ".", count: 10) + String(repeating: "z", count: 10)))
        #expect(states[10..<20].allSatisfy { $0 == .unknown })
        #expect(SleepScorer.score([]) == [])
        #expect(SleepScorer.score(night("....")).allSatisfy { $0 == .unknown })
    }

    @Test("Webster's rules: first minutes of sleep after long wake, and short sleep inside long wake, become wake")
    func websterRescoring() {
        func states(_ text: String) -> [SleepState] { text.map { $0 == "S" ? .asleep : $0 == "A" ? .awake : .unknown } }
        // (a) 4 awake → next 1 asleep rescored.
        #expect(picture(SleepScorer.rescore(states("AAAASSSSSS"))) == "AAAAASSSSS")
        // (b) 10 awake → next 3.
        #expect(picture(SleepScorer.rescore(states("AAAAAAAAAASSSSSS"))) == "AAAAAAAAAAAAASSS")
        // (c) 15 awake → next 4.
        #expect(picture(SleepScorer.rescore(states(String(repeating: "A", count: 15) + "SSSSSSS"))) == String(repeating: "A", count: 19) + "SSS")
        // Fewer than 4 awake: nothing changes.
        #expect(picture(SleepScorer.rescore(states("AAASSS"))) == "AAASSS")
        // (d) ≤ 6 asleep between ≥ 10 awake on both sides (after (a)–(c) took its first 3).
        let island = String(repeating: "A", count: 10) + "SSSSSS" + String(repeating: "A", count: 10)
        #expect(picture(SleepScorer.rescore(states(island))) == String(repeating: "A", count: 26))
        // (e) ≤ 10 asleep between ≥ 20 awake.
        let longer = String(repeating: "A", count: 20) + String(repeating: "S", count: 14) + String(repeating: "A", count: 20)
        #expect(picture(SleepScorer.rescore(states(longer))) == String(repeating: "A", count: 54))
        // Unknown minutes break a wake run: no rescoring across a band-off gap.
        #expect(picture(SleepScorer.rescore(states("AAAA.SSS"))) == "AAAA.SSS")
    }

    @Test("The sleeping baseline is the 10th percentile of the worn minutes' pulse")
    func baseline() {
        let epochs = (0..<100).map { SleepEpoch(steps: 0, heartRate: Double(50 + $0)) } + [.missing]
        #expect(SleepScorer.sleepingBaseline(epochs) == 60)
        #expect(SleepScorer.sleepingBaseline([.missing]) == nil)
    }
}

@Suite("Sleep periods: in bed over the sleep, asleep and awake tiling it")
struct SleepSegmentationTests {
    private func states(_ text: String) -> [SleepState] { text.map { $0 == "S" ? .asleep : $0 == "A" ? .awake : .unknown } }

    @Test("One night with one awakening: an inBed sample and asleep/awake samples that tile it")
    func oneNight() {
        let text = "AAAAA" + String(repeating: "S", count: 100) + String(repeating: "A", count: 20) + String(repeating: "S", count: 100) + "AAAA"
        let segments = SleepSegmentation.segments(states(text))
        #expect(segments == [
            SleepSegment(value: .inBed, start: 5, end: 225),
            SleepSegment(value: .asleepUnspecified, start: 5, end: 105),
            SleepSegment(value: .awake, start: 105, end: 125),
            SleepSegment(value: .asleepUnspecified, start: 125, end: 225),
        ])
    }

    @Test("More than an hour awake splits the night; a doze under 20 minutes is no sleep period")
    func splitsAndDozes() {
        let text = String(repeating: "S", count: 30) + String(repeating: "A", count: 61) + String(repeating: "S", count: 30)
            + String(repeating: "A", count: 100) + String(repeating: "S", count: 19)
        #expect(SleepSegmentation.periods(states(text)) == [0..<30, 91..<121])
        // 60 minutes awake is still inside.
        let inside = String(repeating: "S", count: 30) + String(repeating: "A", count: 60) + String(repeating: "S", count: 30)
        #expect(SleepSegmentation.periods(states(inside)) == [0..<120])
    }

    @Test("Band off for more than 10 minutes ends a period; shorter gaps are left out of every segment")
    func unknownGaps() {
        let short = String(repeating: "S", count: 30) + "....." + String(repeating: "S", count: 30)
        #expect(SleepSegmentation.periods(states(short)) == [0..<65])
        #expect(SleepSegmentation.segments(states(short)).filter { $0.value != .inBed }.map { $0.end - $0.start } == [30, 30])
        let long = String(repeating: "S", count: 30) + "..........." + String(repeating: "S", count: 30)
        #expect(SleepSegmentation.periods(states(long)) == [0..<30, 41..<71])
    }
}

@Suite("Night windows: noon to noon, local time, DST days")
struct SleepNightTests {
    @Test("The night of a date runs noon to noon; 23 and 25 hours across DST changes")
    func windows() throws {
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        let normal = try #require(SleepNight.window(named: "2026-11-30", in: berlin))
        #expect(normal.lowerBound.timeIntervalSince1970 == 1_796_036_400)  // 2026-11-30T11:00:00Z
        #expect(normal.upperBound.timeIntervalSince(normal.lowerBound) == 86_400)
        let spring = try #require(SleepNight.window(named: "2026-03-28", in: berlin))
        #expect(spring.upperBound.timeIntervalSince(spring.lowerBound) == 23 * 3600)
        let autumn = try #require(SleepNight.window(named: "2026-10-24", in: berlin))
        #expect(autumn.upperBound.timeIntervalSince(autumn.lowerBound) == 25 * 3600)
        #expect(SleepNight.name(containing: normal.lowerBound, in: berlin) == "2026-11-30")
        #expect(SleepNight.name(containing: normal.upperBound.addingTimeInterval(-1), in: berlin) == "2026-11-30")
        #expect(SleepNight.name(containing: normal.upperBound, in: berlin) == "2026-12-01")
    }

    @Test("Not a date: nil", arguments: ["2026-13-01", "2026-02-30", "26-11-30", "2026-11-3", "yesterday", "", "2026-11-30T00:00"])
    func badDates(_ text: String) {
        #expect(SleepNight.window(named: text, in: TimeZone(identifier: "UTC")!) == nil)
    }
}
