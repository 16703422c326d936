import BandReader
import HealthStore
import Testing

/// The store handle a session opens its writer from: the run's previous writer is reused for the
/// same device (no store round trip on a reconnect, also while the store is unreachable), and a
/// writer is never reused for another device.
@Suite struct ReaderStoreTests {
    static let band = BandDeviceInfo(name: "BandKit", manufacturer: "BandKit", model: "B1", serialNumber: "SN1", firmwareRevision: "1.0")

    @Test func theRunsPreviousWriterIsReusedForTheSameDevice() throws {
        let temporary = try SampleWriterTests.TemporaryStore()
        let store = ReaderStore(store: temporary.store, bandAddress: "sim:/band")
        let first = try store.writer(for: Self.band)
        #expect(first.deviceIdentifier == Self.band.deviceIdentifier(address: "sim:/band"))
        #expect(try store.writer(for: Self.band, reusing: first) === first)
        // Without it (a new run), a new writer.
        #expect(try store.writer(for: Self.band) !== first)
    }

    @Test func aWriterIsNotReusedForAnotherDeviceOrChangedFirmware() throws {
        let temporary = try SampleWriterTests.TemporaryStore()
        let store = ReaderStore(store: temporary.store, bandAddress: "sim:/band")
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
}
