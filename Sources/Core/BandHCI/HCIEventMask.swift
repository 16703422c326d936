import BandWire

/// Set Event Mask and LE Set Event Mask: one 64-bit mask of the events the controller may send
/// (Core 5.4 Vol 4 Part E §7.3.1 and §7.8.1; bit *n* enables the event listed *n*-th there).
///
/// | bytes | field |
/// |---|---|
/// | u64 LE | event mask |
public struct HCIEventMask: HCICommandParameters, WireDecodable, Hashable, Sendable {
    public var opcode: HCIOpcode
    public var mask: UInt64

    public init(opcode: HCIOpcode = .setEventMask, mask: UInt64) {
        self.opcode = opcode
        self.mask = mask
    }

    /// Disconnection Complete (bit 4), Encryption Change (7), Command Complete/Status are always on,
    /// Hardware Error (15), Data Buffer Overflow (25), Encryption Key Refresh Complete (47),
    /// LE Meta (61): what a peripheral host needs.
    public static let peripheral = HCIEventMask(mask: 1 << 4 | 1 << 7 | 1 << 15 | 1 << 25 | 1 << 47 | 1 << 61)
    /// LE Connection Complete (bit 0), Connection Update Complete (2), Long Term Key Request (4),
    /// Data Length Change (6), Read Local P-256 Public Key Complete (7), Generate DHKey Complete (8),
    /// Enhanced Connection Complete (9).
    public static let lePeripheral = HCIEventMask(opcode: .leSetEventMask, mask: 1 << 0 | 1 << 2 | 1 << 4 | 1 << 6 | 1 << 7 | 1 << 8 | 1 << 9)

    /// Reads the mask; the opcode is not in the parameters, so it is Set Event Mask unless changed.
    public init(parsing input: inout ByteCursor) throws(ParseError) {
        opcode = .setEventMask
        mask = try input.readUInt64LE("event mask")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt64LE(mask)
    }
}
