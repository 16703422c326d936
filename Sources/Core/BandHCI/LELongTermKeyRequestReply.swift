import BandWire

/// LE Long Term Key Request Reply (Core 5.4 Vol 4 Part E §7.8.25), or its negative reply
/// (§7.8.26) when ``longTermKey`` is nil: the host has no key for the link.
///
/// | bytes | field |
/// |---|---|
/// | u16 LE | connection handle |
/// | 16 | long term key, least significant octet first (reply only) |
public struct LELongTermKeyRequestReply: HCICommandParameters, Equatable, Sendable {
    public var opcode: HCIOpcode { longTermKey == nil ? .leLongTermKeyRequestNegativeReply : .leLongTermKeyRequestReply }
    public var handle: UInt16
    public var longTermKey: FixedBytes<16>?

    public init(handle: UInt16, longTermKey: FixedBytes<16>?) {
        self.handle = handle
        self.longTermKey = longTermKey
    }

    /// Reads the parameters of a reply (`negative` false) or a negative reply.
    public init(negative: Bool, parsing input: inout ByteCursor) throws(ParseError) {
        handle = try input.readUInt16LE("connection handle") & 0x0FFF
        longTermKey = negative ? nil : try FixedBytes(copying: try input.readBytes(16, "long term key"))
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt16LE(handle)
        longTermKey?.write(to: &output)
    }
}
