import BandATT
import BandGATTServer
import BandWire

/// The attribute table the firmware core serves through the shared ``GATTServer`` until the band
/// starts (and in the core's own tests): GAP (Device Name), Device Information (Manufacturer,
/// Model) and Battery (Level, notify). Constant data and one CCCD. Once link message 0x10 starts
/// the band, its application (BandFirmwareCore's `ChipBand`) answers every ATT frame from the
/// band's full table instead (``FirmwareApplication/receivedATT(_:board:)``).
///
/// | handle | type | value |
/// |---|---|---|
/// | 0x0001 | 0x2800 | GAP 0x1800 (to 0x0003) |
/// | 0x0002/3 | 0x2803 / 0x2A00 | read; "BandKit M4" |
/// | 0x0004 | 0x2800 | Device Information 0x180A (to 0x0008) |
/// | 0x0005/6 | 0x2803 / 0x2A29 | read; "BandKit" |
/// | 0x0007/8 | 0x2803 / 0x2A24 | read; "mps2-an386" |
/// | 0x0009 | 0x2800 | Battery 0x180F (to 0x000C) |
/// | 0x000A/B | 0x2803 / 0x2A19 | read, notify; battery percent |
/// | 0x000C | 0x2902 | CCCD of Battery Level |
public struct BoardAttributeSource: GATTAttributeSource {
    /// The Battery Level CCCD as the client last wrote it.
    public private(set) var batteryConfiguration: UInt16 = 0
    public var batteryPercent: UInt8 = 87

    public init() {}

    public var attributeCount: Int { 12 }

    // Out of line (here and withValue): inlined into each of the server's scans, this small
    // table's switches cost the image about 3.5 KB of flash; a call per attribute costs nothing
    // that matters before the band starts.
    @inline(never)
    public func attribute(at index: Int) -> GATTServerAttribute {
        let handle = UInt16(index + 1)
        switch handle {
        case 1: return GATTServerAttribute(handle: 1, type: BluetoothUUID(0x2800), serviceUUID: BluetoothUUID(0x1800), groupEnd: 3)
        case 4: return GATTServerAttribute(handle: 4, type: BluetoothUUID(0x2800), serviceUUID: BluetoothUUID(0x180A), groupEnd: 8)
        case 9: return GATTServerAttribute(handle: 9, type: BluetoothUUID(0x2800), serviceUUID: BluetoothUUID(0x180F), groupEnd: 12)
        case 2, 5, 7, 10: return GATTServerAttribute(handle: handle, type: BluetoothUUID(0x2803))
        case 3: return GATTServerAttribute(handle: 3, type: BluetoothUUID(0x2A00))
        case 6: return GATTServerAttribute(handle: 6, type: BluetoothUUID(0x2A29))
        case 8: return GATTServerAttribute(handle: 8, type: BluetoothUUID(0x2A24))
        case 11: return GATTServerAttribute(handle: 11, type: BluetoothUUID(0x2A19))
        default: return GATTServerAttribute(handle: 12, type: BluetoothUUID(0x2902))
        }
    }

    public func firstIndex(atOrAfter handle: UInt16) -> Int { min(max(Int(handle), 1) - 1, attributeCount) }

    @inline(never)
    public func withValue<R>(at index: Int, _ body: (UnsafeRawBufferPointer) -> R) throws(ATTErrorCode) -> R {
        func declaration(_ properties: UInt8, _ valueHandle: UInt16, _ uuid: UInt16) -> R {
            var bytes: (UInt8, UInt8, UInt8, UInt8, UInt8) = (properties, UInt8(valueHandle & 0xFF), UInt8(valueHandle >> 8),
                                                              UInt8(uuid & 0xFF), UInt8(uuid >> 8))
            return withUnsafeBytes(of: &bytes) { body($0) }
        }
        func twoBytes(_ value: UInt16) -> R {
            var bytes: (UInt8, UInt8) = (UInt8(value & 0xFF), UInt8(value >> 8))
            return withUnsafeBytes(of: &bytes) { body($0) }
        }
        func text(_ value: StaticString) -> R { value.withUTF8Buffer { body(UnsafeRawBufferPointer($0)) } }
        switch index + 1 {
        case 1: return twoBytes(0x1800)
        case 2: return declaration(0x02, 3, 0x2A00)
        case 3: return text("BandKit M4")
        case 4: return twoBytes(0x180A)
        case 5: return declaration(0x02, 6, 0x2A29)
        case 6: return text("BandKit")
        case 7: return declaration(0x02, 8, 0x2A24)
        case 8: return text("mps2-an386")
        case 9: return twoBytes(0x180F)
        case 10: return declaration(0x12, 11, 0x2A19)
        case 11:
            var level = batteryPercent
            return withUnsafeBytes(of: &level) { body($0) }
        default: return twoBytes(batteryConfiguration)
        }
    }

    /// Only the CCCD is writable; the effect says whether notifications are now on.
    public mutating func write(_ value: UnsafeRawBufferPointer, at index: Int, withResponse: Bool) throws(ATTErrorCode) -> Bool {
        guard index == 11 else { throw .writeNotPermitted }
        guard value.count == 2 else { throw .invalidAttributeValueLength }
        batteryConfiguration = UInt16(value[0]) | UInt16(value[1]) << 8
        return batteryConfiguration & 1 != 0
    }
}
