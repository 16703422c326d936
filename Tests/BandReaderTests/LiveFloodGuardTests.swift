import BandLink
import BandReader
import Foundation
import HealthModel
import HealthStore
import Testing

/// A device notifying faster than any device does costs a bounded amount: a fixed budget of
/// readings a second is handled, the rest is dropped and counted.
struct LiveFloodGuardTests {
    let start = ContinuousClock.now

    @Test func theBurstIsAdmittedThenTheRateAndTheRestIsCounted() {
        var guard_ = LiveFloodGuard(rate: 10, burst: 20)
        var admitted = 0
        for _ in 0..<1_000 where guard_.admit(at: start) { admitted += 1 }
        #expect(admitted == 20)
        #expect(guard_.dropped == 980)
        // One second later, ten more; the budget never exceeds the burst however long the pause.
        admitted = 0
        for _ in 0..<1_000 where guard_.admit(at: start.advanced(by: .seconds(1))) { admitted += 1 }
        #expect(admitted == 10)
        admitted = 0
        for _ in 0..<1_000 where guard_.admit(at: start.advanced(by: .seconds(3_600))) { admitted += 1 }
        #expect(admitted == 20)
    }

    @Test func aDeviceWithinTheRateLosesNothing() {
        var guard_ = LiveFloodGuard(rate: 32, burst: 256)
        // Four characteristics notifying at 4 Hz each for an hour.
        var refused = 0
        for tick in 0..<(3_600 * 16) where !guard_.admit(at: start.advanced(by: .milliseconds(tick * 1_000 / 16))) { refused += 1 }
        #expect(refused == 0)
        #expect(guard_.dropped == 0)
        #expect(guard_.droppedToReport(at: start.advanced(by: .seconds(3_600)), final: true) == nil)
    }

    @Test func dropsAreReportedAtMostOnceASecondAndAllAtTheEnd() {
        var guard_ = LiveFloodGuard(rate: 1, burst: 1)
        var reports: [Int] = []
        for tick in 0..<300 {
            let now = start.advanced(by: .milliseconds(tick * 10))
            if !guard_.admit(at: now), let count = guard_.droppedToReport(at: now) { reports.append(count) }
        }
        if let rest = guard_.droppedToReport(at: start.advanced(by: .seconds(3)), final: true) { reports.append(rest) }
        #expect(reports.count <= 4, "\(reports)")
        #expect(reports.reduce(0, +) == guard_.dropped)
    }

    /// A strap notifying as fast as the link carries, through a real session: what is handled
    /// stays within the guard's budget, the rest is reported dropped, and every reading handled
    /// is stored once.
    @Test func aFloodingStrapCostsABoundedBudgetAndTheDropsAreCounted() throws {
        let directory = NSTemporaryDirectory() + "bandkit-flood-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let strap = try HeartRateStrap(period: .zero)
        defer { strap.stop() }
        var readings = 0
        var dropped = 0
        var dropReports = 0
        let service = BandReaderService(address: try BandAddress(parsing: "C0:FF:EE:00:00:01"),
                                        keystore: Keystore(path: directory + "/keys.json"), storePath: directory + "/health.sqlite",
                                        stop: StopRequest(), openLink: { _ in strap.link }, report: { event in
            switch event {
            case .reading: readings += 1
            case .readingsDropped(let count):
                dropped += count
                dropReports += 1
            default: break
            }
        })
        service.spoolDirectory = directory + "/spool"
        let budget = LiveFloodGuard(rate: 32, burst: 256)
        service.liveFloodGuard = budget
        let started = ContinuousClock.now
        _ = try service.stream(until: started.advanced(by: .seconds(2)))
        let elapsed = Double((ContinuousClock.now - started).components.seconds) + 1
        let sent = strap.notificationsSent.load(ordering: .relaxed)
        try #require(sent > 2 * budget.burst, "a flood: \(sent) notifications")
        #expect(readings >= budget.burst)
        #expect(Double(readings) <= Double(budget.burst) + Double(budget.rate) * elapsed)
        #expect(dropped > 0)
        #expect(readings + dropped <= sent)
        #expect(dropReports <= Int(elapsed) + 2, "reported at most once a second, not per drop")
        let store = try HealthStore(path: directory + "/health.sqlite")
        let stored = try store.samples(HealthQuery(type: .heartRate), as: .owner).compactMap(\.quantitySample)
            .reduce(0) { $0 + (Int($1.metadata["bandkit.hr.count"] ?? "") ?? 0) }
        #expect(stored == readings)
    }
}
