import BandWire

/// A 48-bit Bluetooth device address (BD_ADDR), written `AA:BB:CC:DD:EE:FF`.
///
/// Core 5.4 Vol 2 Part B §1.2 (BD_ADDR), Vol 6 Part B §1.3 (LE public and random addresses).
/// On every wire BlueZ touches (HCI, L2CAP `sockaddr_l2`, the management socket) the
/// address is 6 bytes least significant first; in text it is most significant first:
///
/// | text           | `AA:BB:CC:DD:EE:FF`   |
/// |----------------|-----------------------|
/// | wire, byte 0…5 | `FF EE DD CC BB AA`   |
///
/// ``type`` is not part of the address: the same 6 bytes may be a public or a random
/// address (see ``LEAddress``).
public struct BluetoothAddress: Hashable, Sendable, CustomStringConvertible, WireCodable {
    /// The six bytes in wire order (least significant first), as in `bdaddr_t`.
    public let bytes: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)

    /// `00:00:00:00:00:00`, BlueZ's `BDADDR_ANY`: bind to whichever adapter.
    public static let any = BluetoothAddress(wireOrder: (0, 0, 0, 0, 0, 0))

    public init(wireOrder bytes: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)) {
        self.bytes = bytes
    }

    /// From the text order, most significant byte first: `[0xAA, 0xBB, …, 0xFF]`.
    public init(textOrder octets: [UInt8]) {
        precondition(octets.count == 6, "a Bluetooth address has 6 bytes")
        bytes = (octets[5], octets[4], octets[3], octets[2], octets[1], octets[0])
    }

    /// Parses `AA:BB:CC:DD:EE:FF` (either case; `-` also accepted as the separator).
    public init(_ text: String) throws(AddressSyntaxError) {
        let groups = text.split(separator: ":", omittingEmptySubsequences: false)
        let parts = groups.count == 6 ? groups : text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 6 else { throw AddressSyntaxError(text: text, reason: "expected six hex bytes separated by ':'") }
        var octets: [UInt8] = []
        for (index, part) in parts.enumerated() {
            guard part.count == 2, part.allSatisfy(\.isHexDigit), let value = UInt8(part, radix: 16) else {
                throw AddressSyntaxError(text: text, reason: "byte \(index + 1) ('\(part)') is not two hex digits")
            }
            octets.append(value)
        }
        self.init(textOrder: octets)
    }

    /// Most significant byte first, as printed.
    public var textOrder: [UInt8] { [bytes.5, bytes.4, bytes.3, bytes.2, bytes.1, bytes.0] }

    /// The two most significant bits, which classify an LE random address (Vol 6 Part B §1.3.2).
    public var randomAddressKind: RandomAddressKind {
        switch bytes.5 >> 6 {
        case 0b11: return .staticRandom
        case 0b01: return .resolvablePrivate
        case 0b00: return .nonResolvablePrivate
        default: return .reserved
        }
    }

    public enum RandomAddressKind: Sendable { case staticRandom, resolvablePrivate, nonResolvablePrivate, reserved }

    public var description: String {
        textOrder.map { byte in
            let digits = String(byte, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }.joined(separator: ":")
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        let raw = try input.readBytes(6, "BD_ADDR")
        bytes = (raw[0], raw[1], raw[2], raw[3], raw[4], raw[5])
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(bytes.0)
        output.writeUInt8(bytes.1)
        output.writeUInt8(bytes.2)
        output.writeUInt8(bytes.3)
        output.writeUInt8(bytes.4)
        output.writeUInt8(bytes.5)
    }

    public static func == (lhs: BluetoothAddress, rhs: BluetoothAddress) -> Bool {
        lhs.textOrder == rhs.textOrder
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(bytes.0); hasher.combine(bytes.1); hasher.combine(bytes.2)
        hasher.combine(bytes.3); hasher.combine(bytes.4); hasher.combine(bytes.5)
    }
}

/// Why a Bluetooth address (text from a user, a key file or a command line) was refused.
public struct AddressSyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
    public var text: String
    public var reason: String
    public init(text: String, reason: String) {
        self.text = text
        self.reason = reason
    }
    public var description: String { "'\(text)' is not a Bluetooth address: \(reason)" }
}
