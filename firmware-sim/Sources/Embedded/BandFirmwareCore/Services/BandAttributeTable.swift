import BandGATT
import BandProtocol
import BandWire

/// The band's attribute table, built once with fixed handles (Core 5.4 Vol 3 Part G §3). Served by
/// BandGATTServer's `GATTServer` through ``BandAttributeSource``. (Not to be confused with
/// BandGATTClient's `GATTDatabase`, what a client discovered of a peer.)
///
/// | handles | service |
/// |---|---|
/// | 0x0001–0x0005 | GAP 0x1800: Device Name, Appearance |
/// | 0x0006–0x0009 | GATT 0x1801: Service Changed (indicate) + CCCD |
/// | 0x000A–0x0012 | Device Information 0x180A: manufacturer, model, serial, firmware revision |
/// | 0x0013–0x0016 | Battery 0x180F: Battery Level (read, notify) + CCCD |
/// | 0x0017–0x001E | Heart Rate 0x180D: Measurement (notify) + CCCD, Body Sensor Location, Control Point |
/// | 0x001F–0x0024 | Running Speed and Cadence 0x1814: Measurement (notify) + CCCD, Feature |
/// | 0x0025–0x002A | Current Time 0x1805: Current Time (read, write, notify) + CCCD, Local Time Information |
/// | 0x002B–0x0037 | Band activity `b5c00001-…`: Live Activity + CCCD, History CP + CCCD, History Data + CCCD, Auth CP + CCCD |
///
/// A client discovers all this; nothing in BandKit's reader hard-codes handles.
public enum BandAttributeTable {
    public enum Role: Sendable, Equatable {
        case primaryService(BluetoothUUID)
        case declaration(Characteristic)
        case value(Characteristic)
        case configuration(Characteristic)
    }

    public struct Attribute: Sendable {
        public let handle: UInt16
        public let type: BluetoothUUID
        public let role: Role
        /// Last handle of the service this attribute belongs to.
        public let serviceEnd: UInt16
    }

    public static let primaryServiceType = GATTUUID.Declaration.primaryService
    public static let secondaryServiceType = GATTUUID.Declaration.secondaryService
    public static let characteristicType = GATTUUID.Declaration.characteristic
    public static let configurationType = GATTUUID.Descriptor.clientCharacteristicConfiguration

    public static let services: [(uuid: BluetoothUUID, characteristics: [Characteristic])] = [
        (GATTUUID.Service.genericAccess, [.deviceName, .appearance]),
        (GATTUUID.Service.genericAttribute, [.serviceChanged]),
        (GATTUUID.Service.deviceInformation, [.manufacturerName, .modelNumber, .serialNumber, .firmwareRevision]),
        (GATTUUID.Service.battery, [.batteryLevel]),
        (GATTUUID.Service.heartRate, [.heartRateMeasurement, .bodySensorLocation, .heartRateControlPoint]),
        (GATTUUID.Service.runningSpeedAndCadence, [.rscMeasurement, .rscFeature]),
        (GATTUUID.Service.currentTime, [.currentTime, .localTimeInformation]),
        (BandActivityService.service, [.liveActivity, .historyControlPoint, .historyData, .authControlPoint]),
    ]

    /// Index `handle − 1` holds the attribute with that handle.
    ///
    /// Built in one pass, each service's end counted before its attributes are added (one array,
    /// no intermediate tuples: the chip's image keeps this start-up code small).
    public static let attributes: [Attribute] = {
        var table: [Attribute] = []
        for service in services {
            var length = 1
            for characteristic in service.characteristics { length += characteristic.needsConfiguration ? 3 : 2 }
            let serviceEnd = UInt16(table.count + length)
            func add(_ type: BluetoothUUID, _ role: Role) {
                table.append(Attribute(handle: UInt16(table.count + 1), type: type, role: role, serviceEnd: serviceEnd))
            }
            add(primaryServiceType, .primaryService(service.uuid))
            for characteristic in service.characteristics {
                add(characteristicType, .declaration(characteristic))
                add(characteristic.uuid, .value(characteristic))
                if characteristic.needsConfiguration { add(configurationType, .configuration(characteristic)) }
            }
        }
        return table
    }()

    public static var lastHandle: UInt16 { UInt16(attributes.count) }

    /// Builds the table and its handle lookups now (they are lazy globals): at start-up, so that
    /// on the chip their one-time allocations come before the allocation baseline, never during
    /// the first connection.
    public static func prepare() {
        _ = attributes.count
        _ = valueHandles.count
        _ = configurationHandles.count
    }

    public static func attribute(_ handle: UInt16) -> Attribute? {
        guard handle >= 1, Int(handle) <= attributes.count else { return nil }
        return attributes[Int(handle) - 1]
    }

    private static let valueHandles: [UInt16] = Characteristic.allCases.map { c in
        attributes.first { $0.role == .value(c) }!.handle
    }
    private static let configurationHandles: [UInt16] = Characteristic.allCases.map { c in
        attributes.first { $0.role == .configuration(c) }?.handle ?? 0
    }

    public static func valueHandle(_ characteristic: Characteristic) -> UInt16 { valueHandles[characteristic.rawValue] }

    /// The CCCD's handle, 0 when the characteristic has none.
    public static func configurationHandle(_ characteristic: Characteristic) -> UInt16 { configurationHandles[characteristic.rawValue] }

    /// The value of a characteristic declaration: properties, value handle, UUID (§3.3.1).
    static func writeDeclaration(of characteristic: Characteristic, into output: inout ByteWriter) {
        output.writeUInt8(characteristic.properties.rawValue)
        output.writeUInt16LE(valueHandle(characteristic))
        characteristic.uuid.encode(into: &output)
    }
}
