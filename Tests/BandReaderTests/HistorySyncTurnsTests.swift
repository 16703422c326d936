import BandFirmware
import BandReader
import Foundation
import Testing

/// At most a few history syncs at once: the queue's decisions, and a session that waits for its
/// turn without syncing, then syncs once it comes, and gives it back.
@Suite(.serialized) struct HistorySyncTurnsTests {
    @Test func turnsGoInTheOrderAskedAndALeavingDeviceGivesBackItsTurnOrItsPlace() {
        var queue = HistorySyncQueue(limit: 2)
        let asked = ["a", "b", "c", "d"].map { queue.request($0) }
        #expect(asked == [true, true, false, false])
        let askedAgain = (queue.request("c"), queue.request("a"))
        #expect(askedAgain == (false, true), "a waiting device keeps its place; a holder still holds")
        #expect(queue.waiting == ["c", "d"])
        let afterA = queue.release("a")
        #expect(afterA == ["c"] && queue.holds("c"))
        let afterD = queue.release("d")
        #expect(afterD == [] && queue.waiting.isEmpty, "a waiting device that leaves gives up its place")
        let late = (queue.request("e"), queue.request("f"))
        #expect(late == (false, false), "both turns are held: c and b")
        let nobody = queue.release("nobody")
        #expect(nobody == [] && queue.waiting == ["e", "f"], "a device with neither changes nothing")
        let afterB = queue.release("b")
        #expect(afterB == ["e"] && queue.holders == Set(["c", "e"]) && queue.waiting == ["f"])
        let afterBoth = (queue.release("c"), queue.release("e"))
        #expect(afterBoth.0 == ["f"] && afterBoth.1 == [] && queue.holders == Set(["f"]))
        #expect(HistorySyncQueue(limit: 0).limit == 1, "at least one sync runs")
    }

    /// A paired simulated band with a day of history, and a queue of one turn that "another band"
    /// holds already.
    private static func pairedBandWithTheOnlyTurnTaken() throws -> (ReaderFixture, HistorySyncTurns) {
        var configuration = BandConfiguration(start: ReaderAgainstSimulatedBandTests.start)
        configuration.historyDays = 1
        configuration.deterministicSecrets = true
        let fixture = try ReaderFixture(configuration)
        _ = try #require(try fixture.service().pair())
        let turns = HistorySyncTurns(limit: 1)
        #expect(turns.request("another band"))
        return (fixture, turns)
    }

    @Test func aSyncWaitsForItsTurnThenSyncsAndGivesItBack() throws {
        let (fixture, turns) = try Self.pairedBandWithTheOnlyTurnTaken()
        let run = SyncRun(fixture.service(), turns: turns)
        try run.waitUntil { !turns.snapshot.waiting.isEmpty }
        let waiter = try #require(turns.snapshot.waiting.first)
        Thread.sleep(forTimeInterval: 0.5)
        #expect(!fixture.events.contains { if case .historyCommitted = $0 { true } else { false } }, "nothing synced before its turn")
        #expect(turns.snapshot.waiting == [waiter])
        turns.release("another band")
        let outcome = try run.result()
        #expect(outcome.historyMinutes >= 1440)
        #expect(turns.snapshot == HistorySyncQueue(limit: 1), "the turn was given back: \(turns.snapshot)")
    }

    @Test func aStopWhileWaitingEndsTheSessionAndGivesUpItsPlace() throws {
        let (fixture, turns) = try Self.pairedBandWithTheOnlyTurnTaken()
        let stop = StopRequest()
        let run = SyncRun(fixture.service(stop: stop), turns: turns)
        try run.waitUntil { !turns.snapshot.waiting.isEmpty }
        stop.request()
        let outcome = try run.result()
        #expect(outcome.stopped && outcome.historyMinutes == 0)
        #expect(turns.snapshot.waiting.isEmpty && turns.snapshot.holders == ["another band"])
    }
}

/// `band sync` of one service on a thread of its own, its outcome collected.
private final class SyncRun: @unchecked Sendable {
    private let condition = NSCondition()
    private let service: BandReaderService
    private var outcome: Result<BandSession.Outcome, SessionError>?

    init(_ service: BandReaderService, turns: HistorySyncTurns) {
        service.historyTurns = turns
        self.service = service
        Thread { [self] in
            let result = Result { () throws(SessionError) in try self.service.sync(attempts: 1) }
            condition.lock()
            outcome = result
            condition.broadcast()
            condition.unlock()
        }.start()
    }

    func waitUntil(_ done: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(20)
        while !done() {
            guard Date() < deadline else { throw TimedOut() }
            Thread.sleep(forTimeInterval: 0.01)
        }
    }

    func result() throws -> BandSession.Outcome {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date().addingTimeInterval(60)
        while outcome == nil {
            guard condition.wait(until: deadline) else { throw TimedOut() }
        }
        return try outcome!.get()
    }

    struct TimedOut: Error {}
}
