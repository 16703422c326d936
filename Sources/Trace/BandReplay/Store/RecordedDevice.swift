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

    /// Reads the strings the trace holds through the live reader's `DeviceInformationMachine`;
    /// values that are not UTF-8 are left out, as the live reader leaves them out.
    public init(database: RecordedGATTDatabase, peer: LEAddress?) {
        var readable: [DeviceInformationMachine.Field: UInt16] = [:]
        for field in DeviceInformationMachine.Field.allCases where field != .battery {
            if let characteristic = database.characteristics.first(where: { $0.uuid == field.uuid }),
               database.values[characteristic.valueHandle] != nil {
                readable[field] = characteristic.valueHandle
            }
        }
        var machine = DeviceInformationMachine(readable: readable)
        var pending = machine.start()[...]
        information = BandDeviceInfo()
        while let action = pending.popFirst() {
            switch action {
            case .read(_, let handle): pending.insert(contentsOf: machine.valueRead(database.values[handle]?.bytes ?? []), at: pending.startIndex)
            case .finished(let device, _): information = device
            case .report, .fail: break
            }
        }
        address = peer.map { "\($0.address)" }
    }

    /// Whether the trace (or a flag) says enough to name the device: a serial number or an address.
    public var isIdentified: Bool { !(information.serialNumber ?? "").isEmpty || address != nil }

    /// The sync-identifier prefix, as `BandReaderService` derives it (nil when unidentified).
    public var deviceIdentifier: String? {
        guard isIdentified else { return nil }
        return information.deviceIdentifier(address: address ?? "")
    }

    /// The store's description of the device, as `BandReaderService` builds it.
    public var storeDevice: DeviceInfo {
        DeviceInfo(name: information.name, manufacturer: information.manufacturer, model: information.model,
                   hardwareIdentifier: information.serialNumber ?? address,
                   firmwareVersion: information.firmwareRevision)
    }
}
