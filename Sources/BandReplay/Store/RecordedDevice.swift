import BandGATT
import BandReader
import BandTrace
import BandWire
import HealthModel

/// Who a recorded device was, from what its trace shows: Device Information and Device Name
/// reads, and the peer address of the connection — the same facts the live reader reads at
/// connect and files its samples under.
public struct RecordedDevice: Equatable, Sendable {
    public var information: BandDeviceInfo
    /// The address the live reader would have used as the band's key (`AA:BB:CC:DD:EE:FF`),
    /// or whatever `--device` says.
    public var address: String?

    /// Reads the strings the trace holds; values that are not UTF-8 are left out.
    public init(database: RecordedGATTDatabase, peer: LEAddress?) {
        func string(_ uuid: BluetoothUUID) -> String? {
            guard let characteristic = database.characteristics.first(where: { $0.uuid == uuid }),
                  let value = database.values[characteristic.valueHandle] else { return nil }
            return (try? DeviceInformationString(parsingAll: value.bytes))?.string
        }
        typealias C = GATTUUID.Characteristic
        information = BandDeviceInfo(name: string(C.deviceName), manufacturer: string(C.manufacturerNameString),
                                     model: string(C.modelNumberString), serialNumber: string(C.serialNumberString),
                                     hardwareRevision: string(C.hardwareRevisionString),
                                     firmwareRevision: string(C.firmwareRevisionString),
                                     softwareRevision: string(C.softwareRevisionString))
        address = peer.map { "\($0.address)" }
    }

    /// Whether the trace (or a flag) says enough to name the device: a serial number or an address.
    public var isIdentified: Bool { !(information.serialNumber ?? "").isEmpty || address != nil }

    /// The sync-identifier prefix, as ``BandReaderService`` derives it (nil when unidentified).
    public var deviceIdentifier: String? {
        guard isIdentified else { return nil }
        return information.deviceIdentifier(address: address ?? "")
    }

    /// The store's description of the device, as ``BandReaderService`` builds it.
    public var storeDevice: DeviceInfo {
        DeviceInfo(name: information.name, manufacturer: information.manufacturer, model: information.model,
                   hardwareIdentifier: information.serialNumber ?? address,
                   firmwareVersion: information.firmwareRevision)
    }
}
