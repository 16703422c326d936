import BandReader
import Foundation
import HealthStore
import Testing

/// The store handle a session opens its writer from: the run's previous writer is reused for the
/// same device (no store round trip on a reconnect, also while the store is unreachable), and a
/// writer is never reused for another device.
@Suite struct ReaderStoreTests {
    static let band = BandDeviceInfo(name: "BandKit", manufacturer: "BandKit", model: "B1", serialNumber: "SN1", firmwareRevision: "1.0")

    @Test func theRunsPreviousWriterIsReusedForTheSameDevice() throws {
        let temporary = try SampleWriterTests.TemporaryStore()
        let store = ReaderStore(opener: StoreOpener(path: temporary.directory + "/health.sqlite"), person: nil, bandAddress: "sim:/band")
        let first = try store.writer(for: Self.band)
        #expect(first.deviceIdentifier == Self.band.deviceIdentifier(address: "sim:/band"))
        #expect(try store.writer(for: Self.band, reusing: first) === first)
        // Without it (a new run), a new writer.
        #expect(try store.writer(for: Self.band) !== first)
    }

    @Test func aWriterIsNotReusedForAnotherDeviceOrChangedFirmware() throws {
        let temporary = try SampleWriterTests.TemporaryStore()
        let store = ReaderStore(opener: StoreOpener(path: temporary.directory + "/health.sqlite"), person: nil, bandAddress: "sim:/band")
        let first = try store.writer(for: Self.band)
        var other = Self.band
        other.serialNumber = "SN2"
        let second = try store.writer(for: other, reusing: first)
        #expect(second !== first)
        #expect(second.deviceIdentifier != first.deviceIdentifier)
        var updated = Self.band
        updated.firmwareRevision = "1.1"
        let third = try store.writer(for: updated, reusing: first)
        #expect(third !== first, "the device row's firmware version changed")
        #expect(third.device.firmwareVersion == "1.1")
    }

    /// A gateway's devices share one opener: one connection per person (the store's one
    /// writer); a store that cannot be opened yet is tried again at the next call.
    @Test func devicesSharingAnOpenerShareOneStoreAndAFailedOpenIsTriedAgain() throws {
        let temporary = try SampleWriterTests.TemporaryStore()
        // A directory where the store file belongs: the open fails as for a disk not mounted yet.
        let path = temporary.directory + "/later.sqlite"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        let opener = StoreOpener(path: path)
        let first = ReaderStore(opener: opener, person: nil, bandAddress: "sim:/band1")
        let second = ReaderStore(opener: opener, person: nil, bandAddress: "sim:/band2")
        do {
            _ = try first.writer(for: Self.band)
            Issue.record("opened a store in a directory that does not exist")
        } catch {
            guard case .store(let failure) = error else { Issue.record("\(error)"); return }
            #expect(failure.mayOpenLater, "\(failure)")
        }
        try FileManager.default.removeItem(atPath: path)
        var other = Self.band
        other.serialNumber = "SN2"
        let a = try first.writer(for: Self.band)
        let b = try second.writer(for: other)
        #expect(try opener.store(person: nil) === opener.store(person: nil))
        #expect(a.deviceIdentifier != b.deviceIdentifier)
    }
}
