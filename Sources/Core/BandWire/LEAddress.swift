/// An LE device's address together with its type: what it takes to name or connect to it.
///
/// On the HCI wire the pair is Address_Type (1, ``LEAddressType``) then Address (6,
/// little-endian), e.g. LE Connection Complete (Core 5.4 Vol 4 Part E §7.7.65.1); the
/// management socket puts the address first and numbers the type its own way, so each
/// layer reads the two fields itself.
///
/// Text: `AA:BB:CC:DD:EE:FF` for a public address, `AA:BB:CC:DD:EE:FF/random` (or another
/// ``LEAddressType`` word) otherwise.
public struct LEAddress: Hashable, Sendable, CustomStringConvertible {
    public var address: BluetoothAddress
    public var type: LEAddressType

    public init(_ address: BluetoothAddress, type: LEAddressType = .public) {
        self.address = address
        self.type = type
    }

    /// Parses `AA:BB:CC:DD:EE:FF` (public) or `AA:BB:CC:DD:EE:FF/random`.
    public init(_ text: String) throws(AddressSyntaxError) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        address = try BluetoothAddress(String(parts[0]))
        type = parts.count == 2 ? try LEAddressType(String(parts[1])) : .public
    }

    public var description: String { type == .public ? "\(address)" : "\(address)/\(type)" }
}
