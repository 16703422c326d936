import Foundation
import HealthModel
import HealthTestSupport
import Testing
@testable import HealthStore

/// `WriteTransaction.save([SampleToSave])`: the same store as saving the samples one by one (rows,
/// anchors, tombstones, apps' first anchors, merged hours, outcomes, errors), on whichever engine
/// the suite runs (SQLite here, PostgreSQL in Tests/checks/postgres.sh, where the batch is sent as
/// multi-row statements: PostgresBatchAndListenerTests counts its round trips).
@Suite struct BatchSaveTests {
    static let importer = AppIdentity(id: "com.example.importer", version: "1")
    static let other = AppIdentity(id: "com.example.other", version: "2")
    static let start = at("2026-11-30T00:00:00Z")

    /// Minute `minute`'s step count, with a sync identifier (version `version`) when `synced`.
    static func steps(_ minute: Int, _ value: Double = 10, synced: Bool = true, version: Int64 = 1,
                      id: UUID = .timeOrdered(), source: AppIdentity = importer) -> SampleToSave {
        let begin = start.addingTimeInterval(Double(minute) * 60)
        let sample = QuantitySample(id: id, type: .stepCount, quantity: Quantity(value, .count), start: begin,
                                    end: begin.addingTimeInterval(60), device: DeviceInfo(name: "Band", hardwareIdentifier: "SN1"),
                                    syncIdentifier: synced ? "steps/\(minute)" : nil, syncVersion: version,
                                    metadata: ["minute": String(minute)])
        return SampleToSave(sample, attributedTo: source)
    }

    /// Everything a save leaves behind, in anchor order.
    static func dump(_ store: HealthStore) throws -> [String] {
        try store.read { connection in
            var lines: [String] = []
            let samples = try connection.prepare("""
                SELECT anchor, uuid, type_id, start_us, end_us, value, app_id, app_version, device_id, sync_id,
                       sync_version, metadata, person_id FROM sample ORDER BY anchor
                """).get()
            while try samples.step().get() {
                lines.append("sample \(samples.int64(0)) \(samples.uuid(1)!) \(samples.int64(2)) \(samples.int64(3))-\(samples.int64(4)) "
                             + "\(samples.double(5)) app \(samples.int64(6)) \(samples.text(7) ?? "-") device \(samples.optionalInt64(8) ?? -1) "
                             + "\(samples.text(9) ?? "-") v\(samples.int64(10)) \(samples.text(11) ?? "-") person \(samples.int64(12))")
            }
            let tombstones = try connection.prepare("SELECT anchor, uuid, type_id, app_id FROM tombstone ORDER BY anchor").get()
            while try tombstones.step().get() {
                lines.append("tombstone \(tombstones.int64(0)) \(tombstones.uuid(1)!) \(tombstones.int64(2)) \(tombstones.int64(3))")
            }
            let apps = try connection.prepare("SELECT id, bundle_id, first_anchor FROM app ORDER BY id").get()
            while try apps.step().get() { lines.append("app \(apps.int64(0)) \(apps.text(1)!) first \(apps.int64(2))") }
            lines.append("counter \(try connection.scalar("SELECT anchor FROM change_counter").get() ?? -1)")
            return lines
        }
    }

    /// Saves `batch` into a fresh store three times: as one batch, one by one, and appended as
    /// series' row values (``appendAll(_:_:)``); the three stores must be equal.
    static func compare(existing: [SampleToSave] = [], _ batch: [SampleToSave]) throws -> [SaveOutcome] {
        let batched = try TemporaryStore()
        let single = try TemporaryStore()
        let appended = try TemporaryStore()
        for temp in [batched, single, appended] where !existing.isEmpty {
            try temp.store.write(as: .owner) { transaction in
                for sample in existing { try save(sample, transaction) }
            }
        }
        let outcomes = try batched.store.write(as: .owner) { try $0.save(batch) }
        let singleOutcomes = try single.store.write(as: .owner) { transaction in
            try batch.map { try save($0, transaction) }
        }
        let appendedOutcomes = try appended.store.write(as: .owner) { try appendAll(batch, $0) }
        #expect(outcomes == singleOutcomes)
        #expect(appendedOutcomes == singleOutcomes)
        let (left, right, third) = (try dump(batched.store), try dump(single.store), try dump(appended.store))
        #expect(left == right)
        #expect(third == right)
        for (a, b) in zip(left, right) where a != b { Issue.record("first difference: \(a) vs \(b)"); break }
        for (a, b) in zip(third, right) where a != b { Issue.record("first difference, appended: \(a) vs \(b)"); break }
        // Merged hours: the statistics read them.
        func sums(_ store: HealthStore) throws -> String {
            let range = start..<start.addingTimeInterval(3 * 86_400)
            let statistics = try store.statistics(type: .stepCount, range: range, options: .sum,
                                                  timeZone: TimeZone(identifier: "UTC")!, as: .owner)
            return "\(statistics)"
        }
        #expect(try sums(batched.store) == sums(single.store))
        #expect(try sums(appended.store) == sums(single.store))
        return outcomes
    }

    /// Appends `batch` as `health import` appends an everyday line: each (type, source, device)
    /// resolved once to a series, then each sample's row values, tagged with its place.
    static func appendAll(_ batch: [SampleToSave], _ transaction: WriteTransaction) throws(BatchSaveError) -> [SaveOutcome] {
        var outcomes: [SaveOutcome] = []
        var series: [String: SampleSeries] = [:]
        for (index, item) in batch.enumerated() {
            guard case .quantity(let sample) = item.payload, let source = item.source else {
                Issue.record("appendAll takes quantity samples with a source")
                continue
            }
            let key = "\(sample.type) \(source.id) \(source.version) \(String(describing: sample.device))"
            if series[key] == nil {
                series[key] = try transaction.series(type: .quantity(sample.type), source: source, device: sample.device,
                                                     tag: index, outcomes: &outcomes)
            }
            try transaction.append(series[key]!, id: sample.id, value: (try? sample.canonicalValue()) ?? .nan, start: sample.start,
                                   end: sample.end, zone: sample.timeZone?.identifier, syncIdentifier: sample.syncIdentifier,
                                   syncVersion: sample.syncVersion, userEntered: sample.userEntered, metadata: sample.metadata,
                                   tag: index, outcomes: &outcomes)
        }
        try transaction.writeAppended(into: &outcomes)
        return outcomes
    }

    static func save(_ sample: SampleToSave, _ transaction: WriteTransaction) throws -> SaveOutcome {
        switch sample.payload {
        case .quantity(let quantity): return try transaction.save(quantity, attributedTo: sample.source!)
        case .category(let category): return try transaction.save(category, attributedTo: sample.source!)
        }
    }

    @Test func aBatchOfNewSamplesIsTheStoreOneByOneGives() throws {
        // 1,100 samples: two full batches of 512 and a remainder in pieces of 64, 8 and 4.
        let batch = (0..<1_100).map { Self.steps($0, Double($0 % 50), synced: $0 % 3 != 0) }
        let outcomes = try Self.compare(batch)
        #expect(outcomes == Array(repeating: .inserted, count: 1_100))
    }

    @Test func replacementsUnchangedAndRepeatedKeysInABatchFollowTheVersionRule() throws {
        let existing = (0..<40).map { Self.steps($0, 1, version: 5) }
        var batch: [SampleToSave] = []
        for minute in 0..<40 {
            switch minute % 4 {
            case 0: batch.append(Self.steps(minute, 2, version: 6))                  // replaces
            case 1: batch.append(Self.steps(minute, 3, version: 5))                  // unchanged: not greater
            case 2: batch.append(Self.steps(minute, 4, version: 4))                  // unchanged: older
            default: batch.append(Self.steps(minute + 100, 5))                      // new
            }
        }
        batch.append(Self.steps(100 + 3, 6, version: 2))  // a key the batch itself inserted, replaced
        batch.append(Self.steps(100 + 7, 7, version: 1))  // and one left unchanged
        let outcomes = try Self.compare(existing: existing, batch)
        #expect(outcomes.filter { if case .replaced = $0 { return true } else { return false } }.count == 11)
        #expect(outcomes.filter { if case .unchanged = $0 { return true } else { return false } }.count == 21)
    }

    @Test func aNewAppInTheMiddleOfABatchGetsTheFirstAnchorOneByOneGivesIt() throws {
        let batch = (0..<300).map { Self.steps($0, source: $0 < 200 ? Self.importer : Self.other) }
        _ = try Self.compare(batch)
    }

    @Test func aDuplicateIdIsNamedByItsPlaceInTheBatchWithTheOneByOneMessage() throws {
        let taken = UUID()
        let temp = try TemporaryStore()
        try temp.store.write(as: .owner) { try $0.save([Self.steps(9_000, id: taken)]) }
        let batch = (0..<700).map { Self.steps($0, synced: false, id: $0 == 600 ? taken : .timeOrdered()) }
        var caught: BatchSaveError?
        do {
            try temp.store.write(as: .owner) { try $0.save(batch) }
        } catch let error as BatchSaveError {
            caught = error
        }
        #expect(caught?.index == 600)
        #expect(caught.map { "\($0.error)" } == "\(HealthStoreError.invalidSample("a sample with id \(taken) already exists"))")
        // Appended as row values, the same error names the same sample by its tag.
        caught = nil
        do {
            try temp.store.write(as: .owner) { _ = try Self.appendAll(batch, $0) }
        } catch let error as BatchSaveError {
            caught = error
        }
        #expect(caught?.index == 600)
        #expect(caught.map { "\($0.error)" } == "\(HealthStoreError.invalidSample("a sample with id \(taken) already exists"))")
        // Nothing of the failed transaction stays.
        #expect(try Self.dump(temp.store).filter { $0.hasPrefix("sample") }.count == 1)
    }

    @Test func anInvalidSampleIsNamedAfterTheSamplesBeforeItWereWritten() throws {
        var batch = (0..<20).map { Self.steps($0) }
        let end = Self.start.addingTimeInterval(-60)
        batch.insert(SampleToSave(QuantitySample(type: .stepCount, quantity: Quantity(1, .count), start: Self.start, end: end),
                                  attributedTo: Self.importer), at: 12)
        let temp = try TemporaryStore()
        var seen = -1
        do {
            try temp.store.write(as: .owner) { transaction in
                do { try transaction.save(batch) } catch {
                    seen = try Self.dump(temp.store).filter { $0.hasPrefix("sample") }.count
                    throw error
                }
            }
        } catch let error as BatchSaveError {
            #expect(error.index == 12)
            #expect("\(error.error)".contains("before start"))
        }
        #expect(seen == 12)
        // Appended as row values: the same error, after the same twelve rows were written.
        seen = -1
        do {
            try temp.store.write(as: .owner) { transaction in
                do { _ = try Self.appendAll(batch, transaction) } catch {
                    seen = try Self.dump(temp.store).filter { $0.hasPrefix("sample") }.count
                    throw error
                }
            }
            Issue.record("a sample ending before its start was appended")
        } catch let error as BatchSaveError {
            #expect(error.index == 12)
            #expect("\(error.error)".contains("before start"))
        }
        #expect(seen == 12)
    }

    @Test func rowsAppendedAndNeverWrittenFailTheCommitInsteadOfVanishing() throws {
        let temp = try TemporaryStore()
        var refused: BatchSaveError?
        var failure: (any Error)?
        do {
            try temp.store.write(as: .owner) { transaction in
                var outcomes: [SaveOutcome] = []
                let series = try transaction.series(type: .quantity(.stepCount), source: Self.importer, device: nil, tag: 1, outcomes: &outcomes)
                try transaction.append(series, id: .timeOrdered(), value: 1, start: Self.start, end: Self.start.addingTimeInterval(60),
                                       zone: nil, syncIdentifier: nil, syncVersion: 0, userEntered: false, metadata: [:],
                                       tag: 1, outcomes: &outcomes)
                // save(_:) would mix its outcomes with the appended rows': it refuses.
                do throws(BatchSaveError) { try transaction.save([Self.steps(5)]) } catch { refused = error }
            }
        } catch {
            failure = error
        }
        #expect(refused.map { "\($0.error)" }?.contains("appended but not written") == true)
        #expect(failure.map { "\($0)" }?.contains("appended but not written") == true)
        #expect(try Self.dump(temp.store).filter { $0.hasPrefix("sample") }.isEmpty)
    }

    @Test func aSeriesIsForTheOwnerOnly() throws {
        let temp = try TemporaryStore()
        try temp.store.allow(Self.importer, [.quantity(.stepCount)])
        #expect(throws: BatchSaveError.self) {
            try temp.store.write(as: Self.importer) { transaction in
                var outcomes: [SaveOutcome] = []
                _ = try transaction.series(type: .quantity(.stepCount), source: Self.importer, device: nil, tag: 1, outcomes: &outcomes)
            }
        }
    }

    @Test func anAppMaySaveOnlyAsItself() throws {
        let temp = try TemporaryStore()
        try temp.store.allow(Self.importer, [.quantity(.stepCount)])
        #expect(throws: BatchSaveError.self) {
            try temp.store.write(as: Self.importer) { try $0.save([Self.steps(1, source: Self.other)]) }
        }
        let mine = SampleToSave(QuantitySample(type: .stepCount, quantity: Quantity(1, .count), start: Self.start,
                                               end: Self.start.addingTimeInterval(60)))
        #expect(try temp.store.write(as: Self.importer) { try $0.save([mine]) } == [.inserted])
    }
}
