import Foundation
import HealthModel
import HealthStore
import HealthTestSupport
import Testing

/// What the live write path asks the store: an app's own samples of several types in one query,
/// and write grants read once per transaction, so a grant changed elsewhere still counts at once.
@Suite struct OwnSamplesAndGrantsTests {
    static let hour = at("2026-11-30T08:00:00Z")..<at("2026-11-30T09:00:00Z")

    func heartRate(_ bpm: Double, _ time: String, syncID: String? = nil) -> QuantitySample {
        QuantitySample(type: .heartRate, quantity: Quantity(bpm, .countPerMinute), start: at(time), end: at(time),
                       syncIdentifier: syncID)
    }

    @Test func ownSamplesAreTheAppsOwnOfEveryTypeAskedStartingInTheRange() throws {
        let temp = try TemporaryStore()
        try temp.store.allow(band, [.quantity(.stepCount), .quantity(.heartRate), .quantity(.activeEnergyBurned)], read: false)
        try temp.store.allow(watch, [.quantity(.stepCount), .quantity(.heartRate)])
        try temp.store.write(as: band) { transaction in
            try transaction.save(steps(10, "2026-11-30T08:00:00Z", "2026-11-30T08:01:00Z", syncID: "b|steps|0"))
            try transaction.save(heartRate(70, "2026-11-30T08:00:30Z", syncID: "b|hr|0"))
            try transaction.save(steps(11, "2026-11-30T07:59:00Z", "2026-11-30T08:00:00Z"))  // starts before the range
            try transaction.save(steps(12, "2026-11-30T09:00:00Z", "2026-11-30T09:01:00Z"))  // starts at its end
        }
        try temp.store.write(as: watch) { transaction in
            try transaction.save(steps(99, "2026-11-30T08:10:00Z", "2026-11-30T08:11:00Z"))
            try transaction.save(heartRate(99, "2026-11-30T08:10:00Z"))
        }
        let types: [SampleType] = [.quantity(.stepCount), .quantity(.heartRate), .quantity(.activeEnergyBurned)]
        let own = try temp.store.ownSamples(of: types, startingIn: Self.hour, as: band)
        #expect(own.compactMap(\.quantitySample).map(\.syncIdentifier) == ["b|steps|0", "b|hr|0"])
        // Only the types asked for.
        #expect(try temp.store.ownSamples(of: [.quantity(.heartRate)], startingIn: Self.hour, as: band).count == 1)
        // The watch's own, although it may read the band's too.
        #expect(try temp.store.ownSamples(of: types, startingIn: Self.hour, as: watch).compactMap(\.quantitySample).map(\.quantity.value) == [99, 99])
        // An app that never wrote, and no types at all: nothing.
        #expect(try temp.store.ownSamples(of: types, startingIn: Self.hour, as: phoneA).isEmpty)
        #expect(try temp.store.ownSamples(of: [], startingIn: Self.hour, as: band).isEmpty)
    }

    /// Grants are read once per transaction, never kept across transactions: a revocation made
    /// by another instance (another process: `health revoke`) refuses the very next write.
    @Test func aWriteGrantRevokedByAnotherInstanceRefusesTheNextWrite() throws {
        let temp = try TemporaryStore()
        try temp.store.allow(band, [.quantity(.stepCount), .quantity(.heartRate)], read: false)
        try temp.store.write(as: band) { transaction in
            try transaction.save(steps(10, "2026-11-30T08:00:00Z", "2026-11-30T08:01:00Z"))
            try transaction.save(heartRate(70, "2026-11-30T08:00:30Z"))
        }
        let other = try HealthStore(path: temp.path)
        try other.setAuthorization(app: band.id, type: QuantityType.heartRate.identifier, access: .write, granted: false)
        #expect(throws: HealthStoreError.notAuthorized(app: band.id, type: QuantityType.heartRate.identifier)) {
            try temp.store.write(as: band) { transaction in
                try transaction.save(steps(10, "2026-11-30T08:01:00Z", "2026-11-30T08:02:00Z"))
                try transaction.save(heartRate(71, "2026-11-30T08:01:30Z"))
            }
        }
        // The type still granted is written; nothing of the refused transaction was.
        try temp.store.write(as: band) { try $0.save(steps(10, "2026-11-30T08:02:00Z", "2026-11-30T08:03:00Z")) }
        #expect(try temp.store.ownSamples(of: [.quantity(.stepCount)], startingIn: Self.hour, as: band).count == 2)
        // Given back elsewhere: the next write sees it.
        try other.setAuthorization(app: band.id, type: QuantityType.heartRate.identifier, access: .write, granted: true)
        try temp.store.write(as: band) { try $0.save(heartRate(72, "2026-11-30T08:03:30Z")) }
    }
}
