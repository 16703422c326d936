import HealthModel
import HealthStore

/// The store a reader session writes to, opened (and its path validated) before any band is
/// touched (issue 11 item 4), and handed to ``BandSession`` at construction: the session opens
/// its ``SampleWriter`` from it once Device Information says which device it is, so nothing calls
/// back into the service that created the session. One per run: its writer is kept across the
/// run's reconnects, so a reconnect while the store is unreachable needs no store round trip to
/// set it up again (same device only).
public final class ReaderStore {
    public let store: HealthStore
    /// The band's keystore address: the device identifier of a band without a serial number.
    public let bandAddress: String
    /// The writer of the last session (``writer(for:)``).
    private var cachedWriter: SampleWriter?

    public init(store: HealthStore, bandAddress: String) {
        self.store = store
        self.bandAddress = bandAddress
    }

    /// The writer for the device Device Information described (its row in the store's devices).
    public func writer(for device: BandDeviceInfo) throws(SessionError) -> SampleWriter {
        let info = DeviceInfo(name: device.name, manufacturer: device.manufacturer, model: device.model,
                              hardwareIdentifier: device.serialNumber ?? bandAddress,
                              firmwareVersion: device.firmwareRevision)
        let identifier = device.deviceIdentifier(address: bandAddress)
        if let cachedWriter, cachedWriter.deviceIdentifier == identifier, cachedWriter.device == info { return cachedWriter }
        do {
            let writer = try SampleWriter(store: store, deviceIdentifier: identifier, device: info)
            cachedWriter = writer
            return writer
        } catch {
            throw .store(StoreFailure(.prepareWriter, error))
        }
    }
}
