/// A Bluetooth UUID: 16-bit SIG alias or full 128-bit.
///
/// Core 5.4 Vol 3 Part B §2.5.1: a 16-bit UUID `xxxx` stands for
/// `0000xxxx-0000-1000-8000-00805F9B34FB`. On the ATT wire UUIDs are little-endian (2 or 16
/// bytes); in text they are written big-endian. 32-bit UUIDs never appear in ATT PDUs
/// (Vol 3 Part F §3.2.1) and are normalised to 128-bit here.
///
/// Text form (JSON output, `--map`): `"2a37"` for 16-bit, lowercase dashed 128-bit otherwise.
public struct BluetoothUUID: Hashable, Sendable, CustomStringConvertible {
    /// The 128 bits in big-endian (text) order.
    public let high: UInt64
    public let low: UInt64

    static let baseHigh: UInt64 = 0x0000_0000_0000_1000
    static let baseLow: UInt64 = 0x8000_0080_5F9B_34FB

    public init(_ short: UInt16) {
        high = UInt64(short) << 32 | Self.baseHigh
        low = Self.baseLow
    }

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The 16-bit alias, when this UUID is on the SIG base.
    public var shortValue: UInt16? {
        guard low == Self.baseLow, high & 0xFFFF_0000_FFFF_FFFF == Self.baseHigh else { return nil }
        return UInt16(truncatingIfNeeded: high >> 32)
    }

    /// Bytes it takes on the ATT wire.
    public var wireSize: Int { shortValue == nil ? 16 : 2 }

    /// Reads a UUID whose width is given by the number of bytes (2 or 16) the PDU allots to it.
    public init(parsing input: inout ByteCursor, width: Int) throws(ParseError) {
        switch width {
        case 2:
            self.init(try input.readUInt16LE("UUID"))
        case 16:
            let lowLE = try input.readUInt64LE("UUID")
            let highLE = try input.readUInt64LE("UUID")
            self.init(high: highLE, low: lowLE)
        case 4:
            let v = try input.readUInt32LE("UUID")
            self.init(high: UInt64(v) << 32 | Self.baseHigh, low: Self.baseLow)
        default:
            throw input.error(.invalidValue, "UUID width")
        }
    }

    /// Writes the shortest ATT form (2 bytes for SIG UUIDs, 16 otherwise), little-endian.
    public func encode(into output: inout ByteWriter) {
        if let short = shortValue {
            output.writeUInt16LE(short)
        } else {
            encodeFull(into: &output)
        }
    }

    /// Writes the 16-byte little-endian form even for SIG UUIDs.
    public func encodeFull(into output: inout ByteWriter) {
        output.writeUInt64LE(low)
        output.writeUInt64LE(high)
    }

    public var description: String {
        if let short = shortValue { return hex(UInt64(short), digits: 4) }
        return "\(hex(high >> 32, digits: 8))-\(hex(high >> 16 & 0xFFFF, digits: 4))-\(hex(high & 0xFFFF, digits: 4))-\(hex(low >> 48, digits: 4))-\(hex(low & 0xFFFF_FFFF_FFFF, digits: 12))"
    }

    /// Parses `"2a37"`, `"0x2A37"` or a dashed/undashed 128-bit UUID.
    public init?(string: String) {
        var text = Substring(string.lowercased())
        if text.hasPrefix("0x") { text = text.dropFirst(2) }
        let digits = text.filter { $0 != "-" }
        guard digits.allSatisfy({ $0.isHexDigit }) else { return nil }
        switch digits.count {
        case 4:
            guard let v = UInt16(digits, radix: 16) else { return nil }
            self.init(v)
        case 8:
            guard let v = UInt64(digits, radix: 16) else { return nil }
            self.init(high: v << 32 | Self.baseHigh, low: Self.baseLow)
        case 32:
            guard let h = UInt64(digits.prefix(16), radix: 16), let l = UInt64(digits.suffix(16), radix: 16) else { return nil }
            self.init(high: h, low: l)
        default:
            return nil
        }
    }
}

private func hex(_ value: UInt64, digits: Int) -> String {
    let s = String(value, radix: 16)
    return String(repeating: "0", count: max(0, digits - s.count)) + s
}
