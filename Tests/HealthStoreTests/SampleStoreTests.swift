import HealthTestSupport
import Foundation
import HealthModel
import HealthStore
import Testing

@Suite struct SampleStoreTests {
    @Test func aSavedSampleReadsBackWithEveryField() throws {
        let temp = try TemporaryStore()
        try temp.store.allow(band, [.quantity(.heartRate)])
        let device = DeviceInfo(name: "Band", manufacturer: "BandKit", model: "B1", hardwareIdentifier: "AA:BB:CC:DD:EE:FF",
                                firmwareVersion: "1.2.3")
        let sample = QuantitySample(type: .heartRate, quantity: Quantity(1.2, .countPerSecond),
                                    start: at("2026-11-30T08:00:00Z"), end: at("2026-11-30T08:00:00Z"),
                                    timeZone: zone("Europe/Berlin"), device: device, syncIdentifier: "AA:BB/hr/1",
                                    syncVersion: 3, userEntered: false, metadata: ["note": "quoted \"text\"\n"])
        let outcome = try temp.store.write(as: band) { try $0.save(sample) }
        #expect(outcome == .inserted)

        let found = try temp.store.samples(HealthQuery(type: .heartRate), as: band)
        #expect(found.count == 1)
        let back = try #require(found.first?.quantitySample)
        #expect(back.id == sample.id)
        #expect(back.quantity == Quantity(72, .countPerMinute))  // stored canonically
        #expect(back.start == sample.start && back.end == sample.end)
        #expect(back.timeZone == zone("Europe/Berlin"))
        #expect(back.device == device)
        #expect(back.source == band)
        #expect(back.syncIdentifier == "AA:BB/hr/1" && back.syncVersion == 3)
        #expect(back.metadata == ["note": "quoted \"text\"\n"])
    }

    @Test func aGreaterSyncVersionReplacesAndEqualOrLowerIsANoOp() throws {
        let temp = try TemporaryStore()
        try temp.store.allow(band, [.quantity(.stepCount)])
        let first = steps(100, "2026-11-30T08:00:00Z", "2026-11-30T08:01:00Z", syncID: "m/0800", version: 2)
        let same = steps(999, "2026-11-30T08:00:00Z", "2026-11-30T08:01:00Z", syncID: "m/0800", version: 2)
        let lower = steps(999, "2026-11-30T08:00:00Z", "2026-11-30T08:01:00Z", syncID: "m/0800", version: 1)
        let greater = steps(120, "2026-11-30T08:00:00Z", "2026-11-30T08:01:00Z", syncID: "m/0800", version: 3)

        let outcomes = try temp.store.write(as: band) { tx in
            [try tx.save(first), try tx.save(same), try tx.save(lower)]
        }
        #expect(outcomes == [.inserted, .unchanged(existing: first.id), .unchanged(existing: first.id)])
        let afterFirst = try temp.store.currentAnchor()

        #expect(try temp.store.write(as: band) { try $0.save(greater) } == .replaced(previous: first.id))
        let values = try temp.store.samples(HealthQuery(type: .stepCount), as: band).compactMap { $0.quantitySample?.quantity.value }
        #expect(values == [120])

        let changes = try temp.store.changes(since: afterFirst, as: band)
        #expect(changes.deleted.map(\.id) == [first.id])
        #expect(changes.samples.map(\.id) == [greater.id])
    }

    /// Names are kept byte for byte: an app and a device whose names differ only in Unicode
    /// normalisation ("é" precomposed, "e" + U+0301) are two apps and two devices, each read
    /// back with its own bytes. The store's row caches were `String`-keyed, and Swift's String
    /// compares by canonical equivalence, so the second spelling was filed under the first.
    @Test func namesThatDifferOnlyInNormalisationAreDifferentSourcesAndDevices() throws {
        let temp = try TemporaryStore()
        let composed = AppIdentity(id: "caf\u{E9}.app", version: "1")
        let decomposed = AppIdentity(id: "cafe\u{301}.app", version: "1")
        for app in [composed, decomposed] { try temp.store.allow(app, [.quantity(.stepCount)]) }
        let composedDevice = DeviceInfo(name: "Caf\u{E9} band")
        let decomposedDevice = DeviceInfo(name: "Cafe\u{301} band")
        try temp.store.write(as: composed) {
            try $0.save(steps(10, "2026-11-30T08:00:00Z", "2026-11-30T08:01:00Z", device: composedDevice))
        }
        try temp.store.write(as: decomposed) {
            try $0.save(steps(20, "2026-11-30T08:01:00Z", "2026-11-30T08:02:00Z", device: decomposedDevice))
        }
        let back = try temp.store.samples(HealthQuery(type: .stepCount), as: .owner).compactMap(\.quantitySample)
        #expect(back.map { Array(($0.source?.id ?? "").utf8) } == [Array(composed.id.utf8), Array(decomposed.id.utf8)])
        #expect(back.map { $0.device?.name.map { Array($0.utf8) } } == [Array(composedDevice.name!.utf8), Array(decomposedDevice.name!.utf8)])
        let sources = try temp.store.sources(of: .quantity(.stepCount))
        #expect(sources.count == 2, "\(sources)")
        #expect(Set(sources.map { Array($0.source.utf8) }) == [Array(composed.id.utf8), Array(decomposed.id.utf8)])
    }

    /// The same inside one transaction, sample after sample, where the writer remembers the app
    /// and device of the sample before (a bulk import's rows repeat them): the memo compares bytes.
    @Test func consecutiveSamplesWhoseNamesDifferOnlyInNormalisationKeepTheirOwnSourceAndDevice() throws {
        let temp = try TemporaryStore()
        let names = ["caf\u{E9}.app", "cafe\u{301}.app", "caf\u{E9}.app"]
        let devices = [DeviceInfo(name: "Caf\u{E9} band"), DeviceInfo(name: "Cafe\u{301} band"), DeviceInfo(name: "Caf\u{E9} band", model: "2")]
        try temp.store.write(as: .owner) { transaction in
            for (index, name) in names.enumerated() {
                let minute = String(format: "%02d", index)
                try transaction.save(steps(Double(10 + index), "2026-11-30T08:\(minute):00Z", "2026-11-30T08:\(minute):30Z",
                                           device: devices[index]), attributedTo: AppIdentity(id: name, version: "1"))
            }
        }
        let back = try temp.store.samples(HealthQuery(type: .stepCount), as: .owner).compactMap(\.quantitySample)
        #expect(back.map { Array(($0.source?.id ?? "").utf8) } == names.map { Array($0.utf8) })
        #expect(back.map { $0.device?.name.map { Array($0.utf8) } } == devices.map { $0.name.map { Array($0.utf8) } })
        #expect(back.map { $0.device?.model } == [nil, nil, "2"])
    }

    @Test func syncIdentifiersAreScopedToTheSource() throws {
        let temp = try TemporaryStore()
        try temp.store.allow(band, [.quantity(.stepCount)])
        try temp.store.allow(watch, [.quantity(.stepCount)])
        try temp.store.write(as: band) { try $0.save(steps(10, "2026-11-30T08:00:00Z", "2026-11-30T08:01:00Z", syncID: "x", version: 1)) }
        let outcome = try temp.store.write(as: watch) {
            try $0.save(steps(20, "2026-11-30T08:00:00Z", "2026-11-30T08:01:00Z", syncID: "x", version: 1))
        }
        #expect(outcome == .inserted)
    }

    @Test(arguments: [
        (TimePredicate.overlaps, ["07:30-08:10", "07:59-08:01", "08:30-08:30", "08:50-09:20"]),
        (TimePredicate.strictStart, ["08:30-08:30", "08:50-09:20"]),
        (TimePredicate.strictEnd, ["07:30-08:10", "07:59-08:01", "08:30-08:30"]),
        (TimePredicate.strictStartAndEnd, ["08:30-08:30"]),
    ])
    func timePredicatesFollowHealthKit(predicate: TimePredicate, expected: [String]) throws {
        let temp = try TemporaryStore()
        let spans = ["07:00-08:00", "07:30-08:10", "07:59-08:01", "08:30-08:30", "08:50-09:20", "09:00-09:30", "09:00-09:00"]
        try temp.store.write(as: .owner) { tx in
            for span in spans {
                let parts = span.split(separator: "-").map { "2026-11-30T\($0):00Z" }
                try tx.save(steps(1, parts[0], parts[1], device: nil), attributedTo: band)
            }
        }
        let query = HealthQuery(type: .stepCount, range: at("2026-11-30T08:00:00Z")..<at("2026-11-30T09:00:00Z"),
                                predicate: predicate)
        let found = try temp.store.samples(query, as: .owner).map { sample -> String in
            let formatter = DateFormatter()
            formatter.timeZone = zone("UTC")
            formatter.dateFormat = "HH:mm"
            return formatter.string(from: sample.start) + "-" + formatter.string(from: sample.end)
        }
        #expect(found == expected)
    }

    @Test func queriesSortLimitAndFilterBySourceAndDevice() throws {
        let temp = try TemporaryStore()
        let bandDevice = DeviceInfo(name: "Band", hardwareIdentifier: "AA:BB")
        try temp.store.write(as: .owner) { tx in
            try tx.save(steps(1, "2026-11-30T08:00:00Z", "2026-11-30T08:01:00Z", device: bandDevice), attributedTo: band)
            try tx.save(steps(2, "2026-11-30T09:00:00Z", "2026-11-30T09:01:00Z"), attributedTo: watch)
            try tx.save(steps(3, "2026-11-30T10:00:00Z", "2026-11-30T10:01:00Z", device: bandDevice), attributedTo: band)
        }
        func values(_ query: HealthQuery) throws -> [Double] {
            try temp.store.samples(query, as: .owner).compactMap { $0.quantitySample?.quantity.value }
        }
        #expect(try values(HealthQuery(type: .stepCount, sort: .startDescending)) == [3, 2, 1])
        #expect(try values(HealthQuery(type: .stepCount, limit: 2)) == [1, 2])
        #expect(try values(HealthQuery(type: .stepCount, sources: [watch.id])) == [2])
        #expect(try values(HealthQuery(type: .stepCount, devices: ["AA:BB"])) == [1, 3])
        #expect(try temp.store.mostRecentSample(of: .stepCount, as: .owner)?.quantity.value == 3)
    }

    @Test func writingWithoutAGrantIsRefused() throws {
        let temp = try TemporaryStore()
        #expect(throws: HealthStoreError.notAuthorized(app: band.id, type: "step-count")) {
            try temp.store.write(as: band) { try $0.save(steps(1, "2026-11-30T08:00:00Z", "2026-11-30T08:01:00Z")) }
        }
    }

    @Test func aReadDeniedAppSeesOnlyWhatItWrote() throws {
        let temp = try TemporaryStore()
        try temp.store.allow(watch, [.quantity(.stepCount)])
        try temp.store.allow(band, [.quantity(.stepCount)], read: false)
        try temp.store.write(as: watch) { try $0.save(steps(500, "2026-11-30T08:00:00Z", "2026-11-30T09:00:00Z")) }
        try temp.store.write(as: band) { try $0.save(steps(40, "2026-11-30T10:00:00Z", "2026-11-30T10:05:00Z")) }

        let seen = try temp.store.samples(HealthQuery(type: .stepCount), as: band)
        #expect(seen.map(\.source?.id) == [band.id])
        let total = try temp.store.statistics(type: .stepCount, range: at("2026-11-30T00:00:00Z")..<at("2026-12-01T00:00:00Z"),
                                              options: .sum, timeZone: zone("UTC"), as: band)
        #expect(total.first?.sum == 40)
        #expect(try temp.store.changes(since: .zero, as: band).samples.count == 1)
        // The watch may read: it sees both.
        #expect(try temp.store.samples(HealthQuery(type: .stepCount), as: watch).count == 2)
    }

    @Test func requestingAuthorizationGrantsOnlyWhatTheUserHasNotDecided() throws {
        let temp = try TemporaryStore()
        try temp.store.setAuthorization(app: band.id, type: "heart-rate", access: .write, granted: false)
        let result = try temp.store.requestAuthorization(for: band, toShare: [.quantity(.stepCount), .quantity(.heartRate)],
                                                         read: [.quantity(.stepCount)])
        #expect(result["step-count"] == Authorization(read: .granted, write: .granted))
        #expect(result["heart-rate"]?.write == .denied)
    }

    @Test func appStateCommitsWithTheSamplesAndRollsBackWithThem() throws {
        let temp = try TemporaryStore()
        try temp.store.allow(band, [.quantity(.stepCount)])
        try temp.store.write(as: band) { tx in
            try tx.save(steps(1, "2026-11-30T08:00:00Z", "2026-11-30T08:01:00Z"))
            try tx.setAppState("cursor/AA:BB", "1234")
        }
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try temp.store.write(as: band) { tx in
                try tx.save(steps(1, "2026-11-30T09:00:00Z", "2026-11-30T09:01:00Z"))
                try tx.setAppState("cursor/AA:BB", "9999")
                throw Abort()
            }
        }
        #expect(try temp.store.appState(app: band.id, key: "cursor/AA:BB") == "1234")
        #expect(try temp.store.samples(HealthQuery(type: .stepCount), as: band).count == 1)
    }

    @Test func aCategoryValueOutsideTheCategoryIsRejected() throws {
        let temp = try TemporaryStore()
        let bad = CategorySample(type: .standHour, value: 7, start: at("2026-11-30T08:00:00Z"), end: at("2026-11-30T09:00:00Z"))
        #expect(throws: HealthStoreError.self) { try temp.store.write(as: .owner) { try $0.save(bad) } }
        let good = CategorySample(type: .standHour, value: 0, start: at("2026-11-30T08:00:00Z"), end: at("2026-11-30T09:00:00Z"))
        try temp.store.write(as: .owner) { try $0.save(good) }
        #expect(try temp.store.samples(HealthQuery(type: .standHour), as: .owner).first?.categorySample?.value == 0)
    }

    @Test func aQuantityInTheWrongUnitIsAnError() throws {
        let temp = try TemporaryStore()
        let wrong = QuantitySample(type: .stepCount, quantity: Quantity(3, .kilometer),
                                   start: at("2026-11-30T08:00:00Z"), end: at("2026-11-30T08:01:00Z"))
        #expect(throws: HealthStoreError.unit(.incompatible(from: .kilometer, to: .count))) {
            try temp.store.write(as: .owner) { try $0.save(wrong) }
        }
    }

    @Test func deletionsAppearInTheChangeFeed() throws {
        let temp = try TemporaryStore()
        try temp.store.allow(band, [.quantity(.stepCount)])
        let sample = steps(5, "2026-11-30T08:00:00Z", "2026-11-30T08:01:00Z")
        try temp.store.write(as: band) { try $0.save(sample) }
        let anchor = try temp.store.currentAnchor()
        #expect(try temp.store.write(as: watch) { try $0.delete(sampleID: sample.id) } == false)  // not its sample
        #expect(try temp.store.write(as: band) { try $0.delete(sampleID: sample.id) })
        let changes = try temp.store.changes(since: anchor, as: band)
        #expect(changes.samples.isEmpty)
        #expect(changes.deleted.map(\.id) == [sample.id])
        #expect(changes.newAnchor > anchor)
        #expect(try temp.store.changes(since: changes.newAnchor, as: band).deleted.isEmpty)
    }

    @Test func changesPageByLimit() throws {
        let temp = try TemporaryStore()
        try temp.store.write(as: .owner) { tx in
            for minute in 0..<5 {
                try tx.save(steps(Double(minute), "2026-11-30T08:0\(minute):00Z", "2026-11-30T08:0\(minute + 1):00Z"))
            }
        }
        var anchor = Anchor.zero
        var seen: [Double] = []
        while true {
            let page = try temp.store.changes(since: anchor, limit: 2, as: .owner)
            if page.newAnchor == anchor { break }
            seen += page.samples.compactMap { $0.quantitySample?.quantity.value }
            anchor = page.newAnchor
        }
        #expect(seen == [0, 1, 2, 3, 4])
    }
}

@Suite struct NestedCallTests {
    @Test func aQueryInsideAWriteSeesTheUncommittedSamples() throws {
        let temp = try TemporaryStore()
        let seen = try temp.store.write(as: .owner) { tx in
            try tx.save(steps(7, "2026-11-30T08:00:00Z", "2026-11-30T08:01:00Z"))
            return try temp.store.samples(HealthQuery(type: .stepCount), as: .owner).count
        }
        #expect(seen == 1)
    }

    @Test func aWriteInsideAWriteIsAnErrorNotADeadlock() throws {
        let temp = try TemporaryStore()
        #expect(throws: HealthStoreError.misuse("write(as:) called inside another write transaction; use its transaction")) {
            try temp.store.write(as: .owner) { _ in
                try temp.store.write(as: .owner) { _ in }
            }
        }
        // The outer transaction was rolled back and the store still works.
        try temp.store.write(as: .owner) { try $0.save(steps(1, "2026-11-30T08:00:00Z", "2026-11-30T08:01:00Z")) }
        #expect(try temp.store.samples(HealthQuery(type: .stepCount), as: .owner).count == 1)
    }
}
