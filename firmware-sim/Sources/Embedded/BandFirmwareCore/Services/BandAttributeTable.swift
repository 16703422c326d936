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
    public static let attributes: [Attribute] = {
        var roles: [(BluetoothUUID, Role, Int)] = []
        for (index, service) in services.enumerated() {
            roles.append((primaryServiceType, .primaryService(service.uuid), index))
            for characteristic in service.characteristics {
                roles.append((characteristicType, .declaration(characteristic), index))
                roles.append((characteristic.uuid, .value(characteristic), index))
                if characteristic.needsConfiguration {
                    roles.append((configurationType, .configuration(characteristic), index))
                }
            }
        }
        var serviceEnds = [UInt16](repeating: 0, count: services.count)
        for (offset, entry) in roles.enumerated() { serviceEnds[entry.2] = UInt16(offset + 1) }
        return roles.enumerated().map { offset, entry in
            Attribute(handle: UInt16(offset + 1), type: entry.0, role: entry.1, serviceEnd: serviceEnds[entry.2])
        }
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
