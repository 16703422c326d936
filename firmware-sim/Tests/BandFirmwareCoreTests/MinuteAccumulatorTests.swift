import BandProtocol
@testable import BandFirmwareCore
import Testing

/// The minute record built from a minute's seconds: sums, the pulse summary, the activity most
/// seconds had and the flags, as the band stores and sends it.
@Suite struct MinuteAccumulatorTests {
    static func second(steps: Int = 0, heartRate: UInt8? = nil, activity: MinuteActivity = .none, worn: Bool = true) -> SecondSample {
        SecondSample(worn: worn, steps: steps, distanceDecimetres: steps * 7, energyDecikilocalories: 3, heartRate: heartRate,
                     rrIntervals: RRList(), cadence: 0, strideMetres: 0.7, speedMetresPerSecond: 0, running: activity == .running,
                     activity: activity)
    }

    func accumulate(_ seconds: [SecondSample], previous: MinuteActivity = .none, partial: Bool = false,
                    clockSet: Bool = true) -> MinuteRecord {
        var minute = MinuteAccumulator(minuteStart: 1_796_025_600, utcOffset: .utc, partial: partial, clockSet: clockSet,
                                       previousActivity: previous)
        for second in seconds { minute.add(second) }
        return minute.record
    }

    @Test func stepsDistanceAndEnergyAreSummedAndThePulseSummarized() {
        let seconds = (0..<60).map { Self.second(steps: 2, heartRate: UInt8(70 + $0 % 3)) }
        let record = accumulate(seconds)
        #expect(record.minuteStart == 1_796_025_600)
        #expect(record.steps == 120 && record.distanceDecimetres == 840 && record.energyDecikilocalories == 180)
        #expect(record.heartRate == HeartRateSummary(average: 71, minimum: 70, maximum: 72))
        #expect(record.flags == [.worn, .heartRatePresent, .clockSet])
    }

    /// 0 bpm is no reading: it neither lowers the minimum nor the average.
    @Test func secondsWithoutAReadingAreLeftOutOfThePulse() {
        let seconds = [Self.second(heartRate: 0), Self.second(heartRate: nil), Self.second(heartRate: 90), Self.second(heartRate: 91)]
        #expect(accumulate(seconds).heartRate == HeartRateSummary(average: 91, minimum: 90, maximum: 91))
        #expect(accumulate([Self.second(heartRate: 0), Self.second()]).heartRate == nil)
    }

    @Test func aMinuteOffTheWristIsNotWornAndPartialAndUnsetClockAreFlagged() {
        let record = accumulate((0..<60).map { _ in Self.second(worn: false) }, partial: true, clockSet: false)
        #expect(record.flags == [.partial])
        #expect(record.heartRate == nil)
    }

    @Test func theActivityIsWhatMostSecondsHadTiesGoingToNoneThenWalking() {
        func seconds(walking: Int, running: Int, other: Int) -> [SecondSample] {
            Array(repeating: Self.second(activity: .walking), count: walking) + Array(repeating: Self.second(activity: .running), count: running)
                + Array(repeating: Self.second(), count: other)
        }
        #expect(accumulate(seconds(walking: 31, running: 0, other: 29)).activity == .walking)
        #expect(accumulate(seconds(walking: 30, running: 0, other: 30)).activity == .none)
        #expect(accumulate(seconds(walking: 20, running: 21, other: 19)).activity == .running)
        #expect(accumulate(seconds(walking: 25, running: 25, other: 10)).activity == .walking)
        #expect(accumulate(seconds(walking: 20, running: 20, other: 20)).activity == .none)
    }

    @Test func aWalkOrRunStartsASessionOnlyAfterAnotherActivity() {
        let walk = Array(repeating: Self.second(steps: 2, activity: .walking), count: 60)
        #expect(accumulate(walk, previous: .none).flags.contains(.sessionStart))
        #expect(accumulate(walk, previous: .running).flags.contains(.sessionStart))
        #expect(!accumulate(walk, previous: .walking).flags.contains(.sessionStart))
        #expect(!accumulate((0..<60).map { _ in Self.second() }, previous: .walking).flags.contains(.sessionStart))
    }

    /// The record's fields are 16 bits: a minute's sums saturate instead of wrapping.
    @Test func sumsBeyondSixteenBitsSaturate() {
        let record = accumulate(Array(repeating: Self.second(steps: 2_000), count: 60))
        #expect(record.steps == UInt16.max && record.distanceDecimetres == UInt16.max)
    }
}
