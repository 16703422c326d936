import HealthTestSupport
import Foundation
import HealthModel
@testable import HealthStore
import Testing

/// Several people in one store: each instance acts for one person, and nothing of one person
/// reaches another's queries, statistics, change feed, exports or grants.
@Suite struct PeopleTests {
    let temp: TemporaryStore
    /// The second person's view of the same store.
    let ana: HealthStore

    init() throws {
        temp = try TemporaryStore()
        try temp.store.addPerson(named: "ana")
        ana = try HealthStore(path: temp.path, person: "ana")
    }

    let day = at("2026-11-30T00:00:00Z")..<at("2026-12-01T00:00:00Z")

    func stepSum(_ store: HealthStore, as app: AppIdentity = .owner, bySource: Bool = false) throws -> Double? {
        try store.statistics(type: .stepCount, range: day, options: .sum, timeZone: zone("UTC"), bySource: bySource, as: app)[0].sum
    }

    /// The same walk from the same watch for both people, plus a second walk for ana only.
    func writeTheSameDayForBoth() throws {
        for store in [temp.store, ana] {
            try store.write(as: .owner) { transaction in
                try transaction.save(steps(2500, "2026-11-30T08:00:00Z", "2026-11-30T09:00:00Z"), attributedTo: watch)
                try transaction.save(steps(2300, "2026-11-30T08:00:00Z", "2026-11-30T09:00:00Z"), attributedTo: band)
            }
        }
        try ana.write(as: .owner) { try $0.save(steps(700, "2026-11-30T17:30:00Z", "2026-11-30T17:45:00Z"), attributedTo: watch) }
        // The source order is the store's, shared by both: the watch counts where both recorded.
        try temp.store.setSourcePriority(for: .quantity(.stepCount), sources: [watch.id, band.id])
    }

    @Test func theDefaultPersonIsListedFirstAndOthersFollow() throws {
        let people = try temp.store.people()
        #expect(people.map(\.name) == ["default", "ana"])
        #expect(people[0].isDefault && people[0].id == Person.defaultID && !people[1].isDefault)
        #expect(temp.store.person.isDefault)
        #expect(ana.person.name == "ana" && ana.person.id == people[1].id)
    }

    @Test func twoPeopleWithTheSameDataGetSeparateStatistics() throws {
        try writeTheSameDayForBoth()
        // Merged (hourly rows), by source (from the samples), and the sample list: each person's own.
        #expect(try stepSum(temp.store) == 2500)
        #expect(try stepSum(ana) == 3200)
        #expect(try stepSum(temp.store, bySource: true) == 2500)
        #expect(try stepSum(ana, bySource: true) == 3200)
        let hourly = try ana.statistics(type: .stepCount, range: day, options: .sum, bucket: .hour, timeZone: zone("UTC"), as: .owner)
        #expect(hourly[8].sum == 2500 && hourly[17].sum == 700)
        let mine = try temp.store.statistics(type: .stepCount, range: day, options: .sum, bucket: .hour, timeZone: zone("UTC"), as: .owner)
        #expect(mine[17].sum == nil)
        #expect(try temp.store.samples(HealthQuery(type: .stepCount), as: .owner).count == 2)
        #expect(try ana.samples(HealthQuery(type: .stepCount), as: .owner).count == 3)
        #expect(try temp.store.sources(of: .quantity(.stepCount)).map(\.sampleCount).reduce(0, +) == 2)
        // A rebuild of every hourly row (what a change of source order does) keeps them apart too.
        try temp.store.setSourcePriority(for: .quantity(.stepCount), sources: [band.id, watch.id])
        #expect(try stepSum(temp.store) == 2300)
        #expect(try stepSum(ana) == 3000)
    }

    @Test func theSameSyncIdentifierUnderTwoPeopleStoresTwoRows() throws {
        for store in [temp.store, ana] {
            let outcome = try store.write(as: .owner) {
                try $0.save(steps(100, "2026-11-30T08:00:00Z", "2026-11-30T08:01:00Z", syncID: "minute-1"), attributedTo: band)
            }
            #expect(outcome == .inserted)
        }
        // The version rule holds per person: ana's newer version replaces only ana's row.
        let replaced = try ana.write(as: .owner) {
            try $0.save(steps(120, "2026-11-30T08:00:00Z", "2026-11-30T08:01:00Z", syncID: "minute-1", version: 1), attributedTo: band)
        }
        guard case .replaced = replaced else { Issue.record("ana's version 1 did not replace: \(replaced)"); return }
        #expect(try stepSum(temp.store) == 100)
        #expect(try stepSum(ana) == 120)
        let rows = try temp.store.withConnection { try $0.scalar("SELECT count(*) FROM sample WHERE sync_id = 'minute-1'").get() }
        #expect(rows == 2)
    }

    @Test func anAppGrantedForOnePersonReadsNothingOfAnother() throws {
        let workout = Workout(activity: .running, start: at("2026-11-30T18:00:00Z"), end: at("2026-11-30T18:30:00Z"))
        for store in [temp.store, ana] {
            try store.write(as: .owner) { transaction in
                try transaction.save(steps(2500, "2026-11-30T08:00:00Z", "2026-11-30T09:00:00Z"), attributedTo: watch)
                try transaction.save(Workout(activity: .running, start: workout.start, end: workout.end), attributedTo: watch)
            }
        }
        try ana.allow(phoneA, [.quantity(.stepCount), .workout])
        #expect(try ana.authorization(app: phoneA.id, type: "step-count").read == .granted)
        #expect(try temp.store.authorization(app: phoneA.id, type: "step-count").read == .notDetermined)

        // Granted for ana: phone A reads ana's samples, statistics, feed, workouts and export.
        #expect(try ana.samples(HealthQuery(type: .stepCount), as: phoneA).count == 1)
        #expect(try stepSum(ana, as: phoneA) == 2500)
        #expect(try ana.changes(since: .zero, as: phoneA).samples.count == 1)
        #expect(try ana.changes(since: .zero, as: phoneA).workouts.count == 1)
        #expect(try ana.workouts(as: phoneA).count == 1)
        var exported = 0
        try ana.forEachSample(HealthQuery(type: .stepCount), as: phoneA) { _ in exported += 1 }
        #expect(exported == 1)

        // Not granted for the default person: nothing of theirs.
        #expect(try temp.store.samples(HealthQuery(type: .stepCount), as: phoneA).isEmpty)
        #expect(try stepSum(temp.store, as: phoneA) == nil)
        let feed = try temp.store.changes(since: .zero, as: phoneA)
        #expect(feed.samples.isEmpty && feed.workouts.isEmpty && feed.deleted.isEmpty)
        #expect(try temp.store.workouts(as: phoneA).isEmpty)
        exported = 0
        try temp.store.forEachSample(HealthQuery(type: .stepCount), as: phoneA) { _ in exported += 1 }
        try temp.store.forEachWorkout(as: phoneA) { _ in exported += 1 }
        #expect(exported == 0)
        #expect(try temp.store.sources(of: .quantity(.stepCount), as: phoneA).isEmpty)
    }

    @Test func theChangeFeedIsPerPersonDeletionsIncluded() throws {
        let saved = steps(50, "2026-11-30T10:00:00Z", "2026-11-30T10:01:00Z")
        try ana.write(as: .owner) { try $0.save(saved, attributedTo: band) }
        try temp.store.write(as: .owner) { try $0.save(steps(60, "2026-11-30T10:00:00Z", "2026-11-30T10:01:00Z"), attributedTo: band) }
        let mark = try ana.currentAnchor()
        // The default person cannot delete ana's sample; ana can, and only ana's feed reports it.
        #expect(try temp.store.write(as: .owner) { try $0.delete(sampleID: saved.id) } == false)
        #expect(try ana.write(as: .owner) { try $0.delete(sampleID: saved.id) })
        #expect(try ana.changes(since: mark, as: .owner).deleted.map(\.id) == [saved.id])
        #expect(try temp.store.changes(since: mark, as: .owner).deleted.isEmpty)
        #expect(try temp.store.changes(since: .zero, as: .owner).samples.map(\.quantitySample?.quantity.value) == [60])
        #expect(try ana.changes(since: .zero, as: .owner).samples.isEmpty)
    }

    @Test func waitingForChangesIgnoresAnotherPersonsCommits() throws {
        let mark = try temp.store.currentAnchor()
        try ana.write(as: .owner) { try $0.save(steps(5, "2026-11-30T08:00:00Z", "2026-11-30T08:01:00Z")) }
        #expect(try temp.store.waitForChanges(after: mark, timeout: .milliseconds(300), recheckInterval: .milliseconds(50)) == nil)
        #expect(try ana.waitForChanges(after: mark, timeout: .seconds(60)) != nil)
        try temp.store.write(as: .owner) { try $0.save(steps(6, "2026-11-30T08:00:00Z", "2026-11-30T08:01:00Z")) }
        #expect(try temp.store.waitForChanges(after: mark, timeout: .seconds(60)) == temp.store.currentAnchor())
    }

    @Test func characteristicsArePerPerson() throws {
        try ana.setCharacteristic(.dateOfBirth, "1990-05-17")
        #expect(try ana.characteristics(as: .owner).dateOfBirth?.year == 1990)
        #expect(try temp.store.characteristics(as: .owner).dateOfBirth == nil)
    }

    @Test func aWorkoutIdCannotMoveToAnotherPerson() throws {
        let run = Workout(activity: .running, start: at("2026-11-30T18:00:00Z"), end: at("2026-11-30T18:30:00Z"))
        try temp.store.write(as: .owner) { try $0.save(run) }
        #expect(throws: HealthStoreError.self) { try ana.write(as: .owner) { try $0.save(run) } }
        #expect(try ana.workouts(as: .owner).isEmpty)
        #expect(try temp.store.write(as: .owner) { try $0.save(run) } == .unchanged(existing: run.id))
    }

    /// Names that look the same are one person: NFC and NFD spellings are one name, and
    /// invisible or bidirectional-control characters are refused.
    @Test func lookAlikeNamesAreOnePersonOrRefused() throws {
        let composed = "jos\u{E9}", decomposed = "jose\u{301}"
        let jose = try temp.store.addPerson(named: decomposed)
        #expect(Array(jose.name.utf8) == Array(composed.utf8), "stored in NFC")
        #expect(throws: HealthStoreError.personExists(composed)) { try temp.store.addPerson(named: composed) }
        #expect(try HealthStore(path: temp.path, person: composed).person.id == jose.id)
        #expect(try HealthStore(path: temp.path, person: decomposed).person.id == jose.id)
        for invisible: UInt32 in [0x200B, 0x200E, 0x200F, 0x202A, 0x202E, 0x2066, 0x2069, 0xFEFF, 0x00AD, 0x2060, 0x061C, 0x3164] {
            let name = "ana" + String(Character(Unicode.Scalar(invisible)!))
            #expect(Person.problem(withName: name) != nil, "U+\(String(invisible, radix: 16))")
            #expect(throws: HealthStoreError.self) { try temp.store.addPerson(named: name) }
            #expect(throws: HealthStoreError.self) { try temp.store.renamePerson("ana", to: name) }
        }
        // Joiners stay: emoji sequences and Persian names need them.
        #expect(Person.problem(withName: "\u{0645}\u{06CC}\u{200C}\u{062E}\u{0648}\u{0627}\u{0647}\u{0645}") == nil)
        #expect(try temp.store.people().count == 3)
    }

    /// A name stored decomposed before names were normalised is still found by either spelling,
    /// blocks its look-alike, and a rename stores it in NFC.
    @Test func aDecomposedNameStoredBeforeIsFoundAndRenamedIntoNFC() throws {
        let composed = "jos\u{E9}", decomposed = "jose\u{301}"
        let old = try temp.store.addPerson(named: "placeholder")
        try temp.store.write(as: .owner) { transaction in
            let update = try transaction.connection.cached("UPDATE person SET name = ? WHERE id = ?").get()
            update.bind(1, decomposed)
            update.bind(2, old.id)
            try update.run().get()
        }
        #expect(try HealthStore(path: temp.path, person: composed).person.id == old.id)
        #expect(throws: HealthStoreError.self) { try temp.store.addPerson(named: composed) }
        try temp.store.renamePerson(composed, to: composed)
        #expect(try temp.store.people().contains { Array($0.name.utf8) == Array(composed.utf8) })
    }

    @Test func namesAreValidatedAndUnique() throws {
        #expect(throws: HealthStoreError.personExists("ana")) { try temp.store.addPerson(named: "ana") }
        #expect(throws: HealthStoreError.unknownPerson("bo")) { _ = try HealthStore(path: temp.path, person: "bo") }
        for bad in ["", String(repeating: "x", count: 65), "a\u{1B}[2Jb", "ana\n", " ana", "x\u{202E}y"] {
            #expect(throws: HealthStoreError.self, "\(bad.debugDescription)") { try temp.store.addPerson(named: bad) }
            #expect(Person.problem(withName: bad) != nil, "\(bad.debugDescription)")
        }
        #expect(Person.problem(withName: String(repeating: "é", count: 64)) == nil)
        #expect(Person.problem(withName: "Ana María 👩‍👧") == nil)
        try temp.store.renamePerson("ana", to: "Ana")
        #expect(throws: HealthStoreError.unknownPerson("ana")) { try temp.store.renamePerson("ana", to: "x") }
        #expect(throws: HealthStoreError.personExists("default")) { try temp.store.renamePerson("Ana", to: "default") }
        // Rows hold the id: the renamed person's data stays theirs.
        try ana.write(as: .owner) { try $0.save(steps(5, "2026-11-30T08:00:00Z", "2026-11-30T08:01:00Z")) }
        let renamed = try HealthStore(path: temp.path, person: "Ana")
        #expect(try renamed.samples(HealthQuery(type: .stepCount), as: .owner).count == 1)
        #expect(try HealthStore(path: temp.path).person.isDefault)
    }
}
