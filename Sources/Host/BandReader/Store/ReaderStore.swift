import HealthModel
import HealthStore

/// The store a reader session writes to, opened (and its path validated) before any band is touched
/// (a bad path must fail at once, not after the band was woken and its clock set), and handed to
/// ``BandSession`` at construction: the session opens its ``SampleWriter`` from it once Device
/// Information says which device it is, so nothing calls back into the service that created the
/// session. A value: the writer a run keeps across its reconnects is the run's
/// (``BandSession/reusableWriter``), not the store's.
public struct ReaderStore {
    public let store: HealthStore
    /// The band's keystore address: the device identifier of a band without a serial number.
    public let bandAddress: String

    public init(store: HealthStore, bandAddress: String) {
        self.store = store
        self.bandAddress = bandAddress
    }

    /// The writer for the device Device Information described (its row in the store's devices).
    /// `previous`, the writer of the run's last session, is returned when it writes for the same
    /// device, so a reconnect while the store is unreachable needs no store round trip to set the
    /// writer up again.
    public func writer(for device: BandDeviceInfo, reusing previous: SampleWriter? = nil) throws(SessionError) -> SampleWriter {
        let info = DeviceInfo(name: device.name, manufacturer: device.manufacturer, model: device.model,
                              hardwareIdentifier: device.serialNumber ?? bandAddress,
                              firmwareVersion: device.firmwareRevision)
        let identifier = device.deviceIdentifier(address: bandAddress)
        if let previous, previous.deviceIdentifier == identifier, previous.device == info { return previous }
        do {
            return try SampleWriter(store: store, deviceIdentifier: identifier, device: info)
        } catch {
            throw .store(StoreFailure(.prepareWriter, error))
        }
    }
}
