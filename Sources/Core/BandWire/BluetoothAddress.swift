/// A 48-bit Bluetooth device address (BD_ADDR), written `AA:BB:CC:DD:EE:FF`.
///
/// Core 5.4 Vol 2 Part B §1.2 (BD_ADDR) and Vol 6 Part B §1.3 (LE public and random
/// addresses). On every wire (HCI commands and events, L2CAP `sockaddr_l2`, the BlueZ
/// management socket, SMP Identity Address Information) the address is 6 bytes least
/// significant first; in text it is most significant first, uppercase, as BlueZ `ba2str()`
/// and Wireshark print it:
///
/// | form            | bytes                 |
/// |-----------------|-----------------------|
/// | text            | `AA:BB:CC:DD:EE:FF`   |
/// | wire, byte 0…5  | `FF EE DD CC BB AA`   |
/// | ``value``       | `0xAABB_CCDD_EEFF`    |
///
/// The address alone does not say whether it is public or random: that is the
/// ``LEAddressType`` beside it (see ``LEAddress``).
public struct BluetoothAddress: Hashable, Sendable, CustomStringConvertible, WireCodable {
    /// The address as a 48-bit integer: the text's first byte is the most significant.
    public let value: UInt64

    /// `00:00:00:00:00:00`, BlueZ's `BDADDR_ANY`: bind to whichever adapter.
    public static let any = BluetoothAddress(0)

    public init(_ value: UInt64) {
        precondition(value >> 48 == 0, "a Bluetooth address has 48 bits")
        self.value = value
    }

    /// From 6 bytes in wire order (least significant first), as in `bdaddr_t`.
    public init<Bytes: Collection<UInt8>>(wireOrder bytes: Bytes) {
        precondition(bytes.count == 6, "a Bluetooth address has 6 bytes")
        value = bytes.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The 6 bytes in wire order (least significant first), as in `bdaddr_t`.
    public var wireOrder: [UInt8] { (0..<6).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) } }

    /// Parses `AA:BB:CC:DD:EE:FF` (either case). Anything else is refused with the position
    /// of the first bad byte.
    public init(_ text: String) throws(AddressSyntaxError) {
        let groups = text.split(separator: ":", omittingEmptySubsequences: false)
        guard groups.count == 6 else {
            throw AddressSyntaxError(text: text, reason: "expected six hex bytes separated by ':', found \(groups.count) group\(groups.count == 1 ? "" : "s")")
        }
        var value: UInt64 = 0
        var offset = 0
        for (index, group) in groups.enumerated() {
            guard group.count == 2, group.allSatisfy({ $0.isHexDigit }), let byte = UInt8(group, radix: 16) else {
                throw AddressSyntaxError(text: text, reason: "byte \(index + 1) ('\(group)', at character \(offset + 1)) is not two hex digits")
            }
            value = value << 8 | UInt64(byte)
            offset += group.count + 1
        }
        self.value = value
    }

    /// Which kind of random address this is, from its two most significant bits (Core 5.4
    /// Vol 6 Part B §1.3.2). Meaningful only for an address whose type is random.
    public var randomAddressKind: RandomAddressKind {
        switch value >> 46 {
        case 0b11: return .staticRandom
        case 0b01: return .resolvablePrivate
        case 0b00: return .nonResolvablePrivate
        default: return .reserved
        }
    }

    /// Vol 6 Part B §1.3.2: static (`11`), resolvable private (`01`), non-resolvable private
    /// (`00`); `10` is reserved.
    public enum RandomAddressKind: Sendable { case staticRandom, resolvablePrivate, nonResolvablePrivate, reserved }

    public var description: String {
        var text = ""
        text.reserveCapacity(17)
        for shift in stride(from: 40, through: 0, by: -8) {
            let byte = UInt8(truncatingIfNeeded: value >> UInt64(shift))
            if shift != 40 { text.append(":") }
            text.append(Self.hexDigits[Int(byte >> 4)])
            text.append(Self.hexDigits[Int(byte & 0x0F)])
        }
        return text
    }

    private static let hexDigits: [Character] = Array("0123456789ABCDEF")

    /// Reads the 6 bytes at once, so a truncated address is an error at its first byte.
    public init(parsing input: inout ByteCursor) throws(ParseError) {
        let bytes = try input.readBytes(6, "BD_ADDR")
        var value: UInt64 = 0
        for index in (0..<6).reversed() { value = value << 8 | UInt64(bytes[index]) }
        self.value = value
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt32LE(UInt32(truncatingIfNeeded: value))
        output.writeUInt16LE(UInt16(truncatingIfNeeded: value >> 32))
    }
}

/// Why text (from a user, a key file or a command line) is not a Bluetooth address or
/// address type: the text and what is wrong with it, and where.
public struct AddressSyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
    public var text: String
    public var reason: String
    public init(text: String, reason: String) {
        self.text = text
        self.reason = reason
    }
    public var description: String { "'\(text)' is not a Bluetooth address: \(reason)" }
}
