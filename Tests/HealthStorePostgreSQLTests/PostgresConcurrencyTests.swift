import HealthTestSupport
import Foundation
import HealthModel
@testable import HealthStore
import Testing

/// Writers of different people commit in parallel on PostgreSQL (a lock per person), and every
/// person's change feed still sees each change exactly once, never skipping an anchor
/// (`WriteTransaction`'s comment has the argument these tests check).
@Suite(.enabled(if: TemporaryStore.usesPostgreSQL, "needs BANDKIT_TEST_POSTGRES_URL (Tests/checks/postgres.sh)"))
struct PostgresConcurrencyTests {
    let temp: TemporaryStore

    init() throws { temp = try TemporaryStore() }

    /// A store for `name`, added to the store first (nil: the default person).
    func store(for name: String?) throws -> HealthStore {
        guard let name else { return try HealthStore(path: temp.path) }
        if try temp.store.people().contains(where: { $0.name == name }) == false { try temp.store.addPerson(named: name) }
        return try HealthStore(path: temp.path, person: name)
    }

    /// Runs `body` on a thread of its own; the semaphore is signalled when it returns (its error kept).
    final class Background: @unchecked Sendable {
        let done = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var failure: (any Error)?
        private(set) var finished = false

        init(_ body: @escaping @Sendable () throws -> Void) {
            Thread.detachNewThread { [self] in
                do { try body() } catch { lock.withLock { failure = error } }
                lock.withLock { finished = true }
                done.signal()
            }
        }

        var isFinished: Bool { lock.withLock { finished } }

        /// Waits up to `seconds`; true when it ended without an error.
        func wait(seconds: Double) throws -> Bool {
            guard done.wait(timeout: .now() + seconds) == .success else { return false }
            if let error = lock.withLock({ failure }) { throw error }
            return true
        }
    }

    /// An app's first samples with a device, written by two people at once. The flag that ranks
    /// the app among devices is set by a store-wide write after each commit. Set inside the write,
    /// widened to the store's lock, it deadlocked here: ben's write held the store's lock shared
    /// and waited for the app's row, which ana's write held while it waited for ben's to end.
    @Test func twoPeoplesFirstDeviceSamplesOfOneAppDoNotDeadlock() throws {
        let ana = try store(for: "ana")
        let ben = try store(for: "ben")
        // The app's row, without a device yet.
        try ana.write(as: .owner) { _ = try $0.save(steps(0, "2026-11-30T07:00:00Z", "2026-11-30T07:01:00Z")) }
        let band = DeviceInfo(name: "Band", hardwareIdentifier: "SN1")
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let benWriter = Background {
            try ben.write(as: .owner) { transaction in
                _ = try transaction.save(steps(2, "2026-11-30T08:00:00Z", "2026-11-30T08:01:00Z", device: band))
                entered.signal()
                release.wait()
            }
        }
        entered.wait()
        let anaWriter = Background {
            try ana.write(as: .owner) { _ = try $0.save(steps(1, "2026-11-30T08:00:00Z", "2026-11-30T08:01:00Z", device: band)) }
        }
        Thread.sleep(forTimeInterval: 0.5)  // ana's write reaches its commit while ben's is open
        release.signal()
        #expect(try benWriter.wait(seconds: 30))
        #expect(try anaWriter.wait(seconds: 30))
        let flagged = try temp.store.withConnection { connection in
            try connection.scalar("SELECT records_device FROM app WHERE bundle_id = ?") { $0.bind(1, AppIdentity.owner.id) }.get()
        }
        #expect(flagged == 1)
    }

    @Test func anotherPersonsWriterCommitsWhileOneTransactionIsOpen() throws {
        let ana = try store(for: "ana")
        let ben = try store(for: "ben")
        // A store serializes its own calls: the feeds are read on connections of their own.
        let anaReader = try store(for: "ana")
        let benReader = try store(for: "ben")
        // The app's row exists (its first write adds it, and another writer adding it too waits
        // for that commit: apps are shared).
        try ana.write(as: .owner) { _ = try $0.save(steps(0, "2026-11-30T07:00:00Z", "2026-11-30T07:01:00Z")) }
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let anaSample = steps(1, "2026-11-30T08:00:00Z", "2026-11-30T08:01:00Z")
        let benSample = steps(2, "2026-11-30T08:00:00Z", "2026-11-30T08:01:00Z")
        let anaMark = try anaReader.currentAnchor()
        let benMark = try benReader.currentAnchor()
        // Ana's transaction takes its anchors first and stays open.
        let anaWriter = Background {
            try ana.write(as: .owner) { transaction in
                try transaction.save(anaSample)
                entered.signal()
                release.wait()
            }
        }
        #expect(entered.wait(timeout: .now() + 30) == .success)
        // Ben commits meanwhile, with greater anchors than ana's uncommitted sample.
        let benWriter = Background { try ben.write(as: .owner) { _ = try $0.save(benSample) } }
        let benCommitted = try benWriter.wait(seconds: 20)
        #expect(benCommitted, "ben's writer waited for ana's transaction: the lock is not per person")
        // Ana's feed must not move past her uncommitted anchor because of ben's commit.
        let anaBefore = try anaReader.changes(since: anaMark, as: .owner)
        #expect(anaBefore.samples.isEmpty)
        #expect(try benReader.changes(since: benMark, as: .owner).samples.map(\.id) == [benSample.id])
        release.signal()
        #expect(try anaWriter.wait(seconds: 30))
        // Her sample, committed after ben's with a lower anchor, is in her feed from where it stopped.
        let anaAfter = try anaReader.changes(since: anaBefore.newAnchor, as: .owner)
        #expect(anaAfter.samples.map(\.id) == [anaSample.id])
        #expect(try anaReader.changes(since: anaAfter.newAnchor, as: .owner).samples.isEmpty)
        if !benCommitted { release.signal() }
    }

    @Test func twoWritersOfOnePersonTakeTurns() throws {
        let first = try store(for: "ana")
        let second = try store(for: "ana")
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let holder = Background {
            try first.write(as: .owner) { transaction in
                try transaction.save(steps(1, "2026-11-30T08:00:00Z", "2026-11-30T08:01:00Z"))
                entered.signal()
                release.wait()
            }
        }
        #expect(entered.wait(timeout: .now() + 30) == .success)
        let waiter = Background { try second.write(as: .owner) { _ = try $0.save(steps(2, "2026-11-30T08:01:00Z", "2026-11-30T08:02:00Z")) } }
        #expect(try waiter.wait(seconds: 0.5) == false, "a second writer of the same person did not wait")
        release.signal()
        #expect(try holder.wait(seconds: 30))
        #expect(try waiter.wait(seconds: 30))
        #expect(try first.changes(since: .zero, as: .owner).samples.map { $0.quantitySample?.quantity.value } == [1, 2])
    }

    /// Four people, two writer connections each (two gateways of one person), racing; a reader per
    /// person polls the feed throughout. Each feed returns each of its person's samples exactly
    /// once, replacements and deletions included, and its anchors only move forward.
    @Test func racingWritersAndPollingReadersSeeEveryChangeExactlyOnce() throws {
        let people = ["p1", "p2", "p3", "p4"]
        let transactions = 25
        let perTransaction = 8
        var writers: [Background] = []
        var readers: [(name: String, background: Background, seen: Seen)] = []
        let stop = Flag()
        for name in people {
            let seen = Seen()
            let reader = try store(for: name)
            readers.append((name, Background {
                var anchor = Anchor.zero
                var last = false
                while !last {
                    last = stop.isSet  // one more poll after every writer ended
                    let changes = try reader.changes(since: anchor, limit: 7, as: .owner)
                    if changes.newAnchor < anchor { throw FeedWentBack(from: anchor, to: changes.newAnchor) }
                    seen.add(changes.samples.map(\.id), deleted: changes.deleted.map(\.id))
                    if changes.newAnchor != anchor { last = false }
                    anchor = changes.newAnchor
                }
            }, seen))
            for gateway in 0..<2 {
                let writer = try store(for: name)
                writers.append(Background {
                    for index in 0..<transactions {
                        try writer.write(as: .owner) { transaction in
                            for row in 0..<perTransaction {
                                let minute = (gateway * transactions + index) * perTransaction + row
                                let start = Date(timeIntervalSince1970: 1_796_000_000 + Double(minute) * 60)
                                try transaction.save(QuantitySample(type: .stepCount, quantity: Quantity(Double(minute), .count),
                                                                    start: start, end: start + 60,
                                                                    syncIdentifier: "\(name)|\(minute)", syncVersion: 1))
                            }
                            if index % 5 == 4 {
                                // A replacement: the newer version takes a new anchor, the old one a tombstone.
                                let minute = (gateway * transactions + index) * perTransaction
                                let start = Date(timeIntervalSince1970: 1_796_000_000 + Double(minute) * 60)
                                try transaction.save(QuantitySample(type: .stepCount, quantity: Quantity(Double(minute) + 0.5, .count),
                                                                    start: start, end: start + 60,
                                                                    syncIdentifier: "\(name)|\(minute)", syncVersion: 2))
                            }
                        }
                    }
                })
            }
        }
        for writer in writers { #expect(try writer.wait(seconds: 300)) }
        stop.set()
        for reader in readers {
            #expect(try reader.background.wait(seconds: 120))
            let person = try HealthStore(path: temp.path, person: reader.name)
            let stored = try person.samples(HealthQuery(type: .stepCount), as: .owner).map(\.id)
            #expect(stored.count == 2 * transactions * perTransaction)
            let (added, deleted) = reader.seen.snapshot
            // Every id seen once; those deleted (replaced) plus those stored are exactly those added.
            #expect(Set(added).count == added.count, "a sample came twice in \(reader.name)'s feed")
            #expect(Set(deleted).count == deleted.count, "a deletion came twice in \(reader.name)'s feed")
            // A sample replaced before a poll saw it comes only as its deletion.
            #expect(Set(stored).isSubset(of: Set(added)), "\(reader.name)'s feed missed a sample")
            #expect(Set(added).subtracting(stored).isSubset(of: Set(deleted)), "\(reader.name)'s feed invented a sample")
            #expect(deleted.count == 2 * transactions / 5)
        }
    }

    /// Newer sources rank higher by default: an app's first anchor is a real one, after every
    /// change committed before it, also when its transaction has not taken a block of anchors yet.
    @Test func anAppsFirstAnchorFollowsEveryEarlierChange() throws {
        try temp.store.write(as: .owner) { _ = try $0.save(steps(1, "2026-11-30T08:00:00Z", "2026-11-30T08:01:00Z"), attributedTo: phoneA) }
        let horizon = try temp.store.currentAnchor()
        try temp.store.write(as: .owner) { _ = try $0.save(steps(2, "2026-11-30T08:01:00Z", "2026-11-30T08:02:00Z"), attributedTo: phoneB) }
        let first = try temp.store.read { connection in
            try connection.scalar("SELECT first_anchor FROM app WHERE bundle_id = ?") { $0.bind(1, phoneB.id) }.get()
        }
        #expect(try #require(first) > horizon.rawValue)
    }

    struct FeedWentBack: Error { let from: Anchor, to: Anchor }

    final class Flag: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false
        var isSet: Bool { lock.withLock { value } }
        func set() { lock.withLock { value = true } }
    }

    final class Seen: @unchecked Sendable {
        private let lock = NSLock()
        private var added: [UUID] = []
        private var deleted: [UUID] = []
        func add(_ ids: [UUID], deleted gone: [UUID]) { lock.withLock { added += ids; deleted += gone } }
        var snapshot: ([UUID], [UUID]) { lock.withLock { (added, deleted) } }
    }
}
