import BandGATT
import BandGATTClient
import BandWire

/// Who the device is — Device Name, the Device Information strings and the battery level — with
/// no I/O: the values read go in, the next read and the result come out. The live session (and
/// `band pair`) performs the reads on a link (``BandConnection/readDeviceInformation(report:)``);
/// replay (`RecordedDevice`) feeds the same machine the values its trace recorded, so both file
/// samples under the same device.
///
/// | event | action |
/// |---|---|
/// | start | read the first present, readable field, in the order of ``Field`` |
/// | a string read | UTF-8 kept; anything else reported as an anomaly and left out; read the next field |
/// | the battery level read | one byte 0…100 kept; anything else reported as an anomaly and left out |
/// | a read failed (link, ATT error) | fail: the session ends with the link's error |
/// | nothing (more) to read | finished: the device and the battery level |
public struct DeviceInformationMachine {
    /// What is read, in this order.
    public enum Field: CaseIterable, Sendable {
        case name, manufacturer, model, serialNumber, hardwareRevision, firmwareRevision, softwareRevision, battery

        public var uuid: BluetoothUUID {
            typealias C = GATTUUID.Characteristic
            switch self {
            case .name: return C.deviceName
            case .manufacturer: return C.manufacturerNameString
            case .model: return C.modelNumberString
            case .serialNumber: return C.serialNumberString
            case .hardwareRevision: return C.hardwareRevisionString
            case .firmwareRevision: return C.firmwareRevisionString
            case .softwareRevision: return C.softwareRevisionString
            case .battery: return C.batteryLevel
            }
        }
    }

    public enum Action {
        /// Read this field's value (at `valueHandle`) and feed it to ``valueRead(_:)``.
        case read(Field, valueHandle: UInt16)
        case report(ReaderEvent)
        case finished(BandDeviceInfo, batteryPercent: Int?)
        case fail(SessionError)
    }

    private var remaining: [(field: Field, valueHandle: UInt16)]
    /// The UUIDs as discovered, for reports (the same value as ``Field/uuid``, in the device's form).
    private var discoveredUUIDs: [Field: BluetoothUUID] = [:]
    private var device = BandDeviceInfo()
    private var battery: Int?

    /// - Parameter readable: the value handle of each field the device has and allows reading.
    public init(readable: [Field: UInt16]) {
        remaining = Field.allCases.compactMap { field in readable[field].map { (field, $0) } }
    }

    /// The fields a discovered device has (Device Name in GAP, the strings in Device Information,
    /// the level in Battery), where their properties allow a read.
    public init(profile: BandProfile) {
        var readable: [Field: UInt16] = [:]
        var uuids: [Field: BluetoothUUID] = [:]
        for field in Field.allCases {
            let characteristic: GATTCharacteristic?
            switch field {
            case .name: characteristic = profile.deviceName
            case .battery: characteristic = profile.batteryLevel
            default: characteristic = profile.deviceInformation[field.uuid]
            }
            if let characteristic, characteristic.properties.contains(.read) {
                readable[field] = characteristic.valueHandle
                uuids[field] = characteristic.uuid
            }
        }
        self.init(readable: readable)
        discoveredUUIDs = uuids
    }

    public func start() -> [Action] { [next] }

    /// The value of the field asked for last.
    public mutating func valueRead(_ bytes: [UInt8]) -> [Action] {
        guard !remaining.isEmpty else { return [] }
        let (field, _) = remaining.removeFirst()
        var actions: [Action] = []
        if field == .battery {
            do { battery = Int(try BatteryLevel(parsingAll: bytes).percent) } catch {
                actions.append(.report(.anomaly("battery level \(Hex.encode(bytes)) is malformed: \(error)")))
            }
        } else {
            do { set(field, try DeviceInformationString(parsingAll: bytes).string) } catch {
                actions.append(.report(.anomaly("\(discoveredUUIDs[field] ?? field.uuid) is not UTF-8: \(error)")))
            }
        }
        return actions + [next]
    }

    /// The read asked for failed.
    public func readFailed(_ error: SessionError) -> [Action] { [.fail(error)] }

    private var next: Action {
        guard let (field, handle) = remaining.first else { return .finished(device, batteryPercent: battery) }
        return .read(field, valueHandle: handle)
    }

    private mutating func set(_ field: Field, _ value: String) {
        switch field {
        case .name: device.name = value
        case .manufacturer: device.manufacturer = value
        case .model: device.model = value
        case .serialNumber: device.serialNumber = value
        case .hardwareRevision: device.hardwareRevision = value
        case .firmwareRevision: device.firmwareRevision = value
        case .softwareRevision: device.softwareRevision = value
        case .battery: break
        }
    }
}
