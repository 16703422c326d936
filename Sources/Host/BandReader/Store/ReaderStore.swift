import HealthModel
import HealthStore

/// The store a reader session writes to, handed to ``BandSession`` at construction: the session
/// opens its ``SampleWriter`` from it once Device Information says which device it is, so
/// nothing calls back into the service that created the session. The store itself is opened
/// through a ``StoreOpener`` on first use: `band sync` and `band stream` open it before any band
/// is touched (a bad path must fail at once), a gateway when a session first writes (a store
/// unreachable at start must not cost a device its run). A value: the writer a run keeps across
/// its reconnects is the run's (``BandSession/reusableWriter``), not the store's.
public struct ReaderStore: Sendable {
    public let opener: StoreOpener
    /// The person the band's readings belong to (nil: the store's default person).
    public let person: String?
    /// The band's keystore address: the device identifier of a band without a serial number.
    public let bandAddress: String

    public init(opener: StoreOpener, person: String?, bandAddress: String) {
        self.opener = opener
        self.person = person
        self.bandAddress = bandAddress
    }

    /// The writer for the device Device Information described (its row in the store's devices),
    /// opening the store first if it is not open yet. `previous`, the writer of the run's last
    /// session, is returned when it writes for the same device, so a reconnect while the store
    /// is unreachable needs no store round trip to set the writer up again.
    public func writer(for device: BandDeviceInfo, reusing previous: SampleWriter? = nil) throws(SessionError) -> SampleWriter {
        let info = DeviceInfo(name: device.name, manufacturer: device.manufacturer, model: device.model,
                              hardwareIdentifier: device.serialNumber ?? bandAddress,
                              firmwareVersion: device.firmwareRevision)
        let identifier = device.deviceIdentifier(address: bandAddress)
        if let previous, previous.deviceIdentifier == identifier, previous.device == info { return previous }
        let store = try opener.store(person: person)
        do {
            return try SampleWriter(store: store, deviceIdentifier: identifier, device: info)
        } catch {
            throw .store(StoreFailure(.prepareWriter, error))
        }
    }
}
