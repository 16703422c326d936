import HealthTestSupport
import Foundation
import HealthModel
import HealthStore
import Testing

/// Several processes on one store file: SQLite WAL, one writer at a time, readers never blocked.
@Suite struct ConcurrencyTests {
    @Test func aReaderNeverSeesHalfAnImportRunningInAnotherProcess() throws {
        let temp = try TemporaryStore()
        let health = HealthCommand(store: temp.path)
        let lines = 20_000
        let importer = try health.start(["import", "-"], input: minuteSteps(count: lines, source: "bandkit.band"))
        let day = at("2026-11-30T00:00:00Z")..<at("2026-12-15T00:00:00Z")
        var observed: Set<Int> = []
        while importer.0.isRunning {
            observed.insert(try temp.store.samples(HealthQuery(type: .stepCount, range: day), as: .owner).count)
        }
        let result = HealthCommand.finish(importer)
        #expect(result.code == 0, "\(result.error)")
        observed.insert(try temp.store.samples(HealthQuery(type: .stepCount, range: day), as: .owner).count)
        #expect(observed.isSubset(of: [0, lines]))
        #expect(observed.contains(lines))
    }

    @Test func twoWriterProcessesTakeTurns() throws {
        let temp = try TemporaryStore()
        let health = HealthCommand(store: temp.path)
        let first = try health.start(["import", "-"], input: minuteSteps(count: 5_000, source: "com.example.a"))
        let second = try health.start(["import", "-"], input: minuteSteps(count: 5_000, source: "com.example.b"))
        let results = [HealthCommand.finish(first), HealthCommand.finish(second)]
        #expect(results.map(\.code) == [0, 0], "\(results.map(\.error))")
        #expect(try temp.store.samples(HealthQuery(type: .stepCount), as: .owner).count == 10_000)
    }

    @Test func aWaitingReaderProcessWakesOnACommitFromAnother() throws {
        let temp = try TemporaryStore()
        let health = HealthCommand(store: temp.path)
        let anchor = try temp.store.currentAnchor()
        let waiter = try health.start(["changes", "--since", String(anchor.rawValue), "--wait", "20", "--json"])
        Thread.sleep(forTimeInterval: 0.3)  // let it start waiting; the outcome does not depend on this
        let sample = steps(42, "2026-11-30T08:00:00Z", "2026-11-30T08:01:00Z")
        let began = Date()
        try temp.store.write(as: .owner) { try $0.save(sample) }
        let result = HealthCommand.finish(waiter)
        #expect(result.code == 0, "\(result.error)")
        #expect(result.output.contains(sample.id.uuidString.lowercased()))
        #expect(Date().timeIntervalSince(began) < 10)
    }

    @Test func waitingTimesOutWithoutChanges() throws {
        let temp = try TemporaryStore()
        let anchor = try temp.store.currentAnchor()
        #expect(try temp.store.waitForChanges(after: anchor, timeout: .milliseconds(200)) == nil)
    }
}
