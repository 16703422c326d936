import BandWire

/// System ID (0x2A23), in the Device Information service.
///
/// Device Information Service 1.1 §3.9; GATT XML `system_id.xml`.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 5 | manufacturer-defined identifier, uint40 |
/// | 5 | 3 | organizationally unique identifier (IEEE OUI), uint24 |
public struct SystemID: WireCodable, Hashable, Sendable {
    /// 40 bits.
    public var manufacturerIdentifier: UInt64
    /// 24 bits.
    public var organizationallyUniqueIdentifier: UInt32

    public init(manufacturerIdentifier: UInt64, organizationallyUniqueIdentifier: UInt32) {
        precondition(manufacturerIdentifier < 1 << 40 && organizationallyUniqueIdentifier < 1 << 24, "System ID fields are 40 and 24 bits")
        self.manufacturerIdentifier = manufacturerIdentifier
        self.organizationallyUniqueIdentifier = organizationallyUniqueIdentifier
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        let low = try input.readUInt32LE("manufacturer identifier")
        let high = try input.readUInt8("manufacturer identifier")
        manufacturerIdentifier = UInt64(high) << 32 | UInt64(low)
        organizationallyUniqueIdentifier = try input.readUInt24LE("organizationally unique identifier")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt32LE(UInt32(truncatingIfNeeded: manufacturerIdentifier))
        output.writeUInt8(UInt8(truncatingIfNeeded: manufacturerIdentifier >> 32))
        output.writeUInt24LE(organizationallyUniqueIdentifier)
    }
}
