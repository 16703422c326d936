import BandGATT
import BandProtocol
import BandWire

/// The band's attribute table, constant data with fixed handles (Core 5.4 Vol 3 Part G §3). Served by
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

    /// The services in handle order, and what each holds: the table's definition, as a reader
    /// discovers it. The rows below are this list written out; BandAttributeTableTests builds the
    /// table from it and compares every attribute and handle lookup.
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

    // The table as constant data (flash), not built at start-up (which cost the chip ≈ 4 KB of
    // flash and 2 KB of heap): one byte per attribute, index = handle − 1, the role in the top two
    // bits (0x00 service, 0x40 characteristic declaration, 0x80 value, 0xC0 CCCD) and the index
    // of the service in `services` or the characteristic's raw value below. Plain numbers, so the
    // compiler keeps the arrays as constant data (an expression would be evaluated at start-up).
    static let rows: [UInt8] = [
        0x00, 0x40, 0x80, 0x41, 0x81,                                       // GAP
        0x01, 0x42, 0x82, 0xC2,                                             // GATT
        0x02, 0x43, 0x83, 0x44, 0x84, 0x45, 0x85, 0x46, 0x86,               // Device Information
        0x03, 0x47, 0x87, 0xC7,                                             // Battery
        0x04, 0x48, 0x88, 0xC8, 0x49, 0x89, 0x4A, 0x8A,                     // Heart Rate
        0x05, 0x4B, 0x8B, 0xCB, 0x4C, 0x8C,                                 // RSC
        0x06, 0x4D, 0x8D, 0xCD, 0x4E, 0x8E,                                 // Current Time
        0x07, 0x4F, 0x8F, 0xCF, 0x50, 0x90, 0xD0, 0x51, 0x91, 0xD1, 0x52, 0x92, 0xD2,   // band activity
    ]
    /// Each service's last handle, in `services` order.
    static let serviceEnds: [UInt8] = [0x05, 0x09, 0x12, 0x16, 0x1E, 0x24, 0x2A, 0x37]
    /// By characteristic (raw value): the value's handle, and the CCCD's (0: none).
    static let valueHandles: [UInt8] = [
        0x03, 0x05, 0x08, 0x0C, 0x0E, 0x10, 0x12, 0x15, 0x19, 0x1C, 0x1E, 0x21, 0x24, 0x27, 0x2A, 0x2D, 0x30, 0x33, 0x36,
    ]
    static let configurationHandles: [UInt8] = [
        0, 0, 0x09, 0, 0, 0, 0, 0x16, 0x1A, 0, 0, 0x22, 0, 0x28, 0, 0x2E, 0x31, 0x34, 0x37,
    ]

    /// The UUID of the service at `index` in ``services``, without building that list: the SIG
    /// services' 16-bit UUIDs as constant data, then the band's own.
    static func serviceUUID(_ index: Int) -> BluetoothUUID {
        index < serviceAssignedNumbers.count ? BluetoothUUID(serviceAssignedNumbers[index]) : BandActivityService.service
    }
    static let serviceAssignedNumbers: [UInt16] = [0x1800, 0x1801, 0x180A, 0x180F, 0x180D, 0x1814, 0x1805]

    public static var lastHandle: UInt16 { UInt16(rows.count) }

    public static func attribute(_ handle: UInt16) -> Attribute? {
        guard handle >= 1, Int(handle) <= rows.count else { return nil }
        return attribute(at: Int(handle) - 1)
    }

    /// The attribute with handle `index + 1` (0 ≤ index < ``lastHandle``). Out of line: inlined
    /// into each of the GATT server's scans, decoding a row cost the image 7.6 KB.
    @inline(never)
    public static func attribute(at index: Int) -> Attribute {
        let row = rows[index]
        let item = Int(row & 0x3F)
        var serviceIndex = 0
        while Int(serviceEnds[serviceIndex]) <= index { serviceIndex += 1 }
        let end = UInt16(serviceEnds[serviceIndex])
        let handle = UInt16(index + 1)
        switch row & 0xC0 {
        case 0x00: return Attribute(handle: handle, type: primaryServiceType, role: .primaryService(serviceUUID(item)), serviceEnd: end)
        case 0x40: return Attribute(handle: handle, type: characteristicType, role: .declaration(characteristic(item)), serviceEnd: end)
        case 0x80:
            let valueOf = characteristic(item)
            return Attribute(handle: handle, type: valueOf.uuid, role: .value(valueOf), serviceEnd: end)
        default: return Attribute(handle: handle, type: configurationType, role: .configuration(characteristic(item)), serviceEnd: end)
        }
    }

    private static func characteristic(_ rawValue: Int) -> Characteristic { Characteristic(rawValue: rawValue) ?? .deviceName }

    public static func valueHandle(_ characteristic: Characteristic) -> UInt16 { UInt16(valueHandles[characteristic.rawValue]) }

    /// The CCCD's handle, 0 when the characteristic has none.
    public static func configurationHandle(_ characteristic: Characteristic) -> UInt16 {
        UInt16(configurationHandles[characteristic.rawValue])
    }

    /// The value of a characteristic declaration: properties, value handle, UUID (§3.3.1).
    static func writeDeclaration(of characteristic: Characteristic, into output: inout ByteWriter) {
        output.writeUInt8(characteristic.properties.rawValue)
        output.writeUInt16LE(valueHandle(characteristic))
        characteristic.uuid.encode(into: &output)
    }
}
