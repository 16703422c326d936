import BandWire

/// Execute Write Request (0x18): write or discard everything queued by Prepare Write Requests.
///
/// Core 5.4 Vol 3 Part F §3.4.6.3.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | opcode 0x18 |
/// | 1 | 1 | flags: 0x00 cancel all, 0x01 write all |
public struct ATTExecuteWriteRequest: ATTPDUType {
    public static let opcode = ATTOpcode.executeWriteRequest

    /// Open: other values are reserved, and a server answers them with Invalid PDU.
    public struct Flags: RawRepresentable, Hashable, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let cancelAllPreparedWrites = Flags(rawValue: 0x00)
        public static let immediatelyWriteAllPendingValues = Flags(rawValue: 0x01)
    }

    public var flags: Flags

    public init(flags: Flags) { self.flags = flags }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        try input.readOpcode(Self.opcode)
        flags = Flags(rawValue: try input.readUInt8("flags"))
        try input.expectEnd("Execute Write Request")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(Self.opcode.rawValue)
        output.writeUInt8(flags.rawValue)
    }
}
