import BandWire

/// LE Credit Based Connection Response's data with a refusal (Core 5.4 Vol 3 Part A §4.23):
/// the band offers no connection-oriented channels, so every request gets result 0x0002
/// (SPSM not supported) and zero DCID, MTU, MPS and credits, as the specification requires
/// of a refusal.
///
/// | bytes | field |
/// |---|---|
/// | u16 LE | destination CID (0) |
/// | u16 LE | MTU (0) |
/// | u16 LE | MPS (0) |
/// | u16 LE | initial credits (0) |
/// | u16 LE | result |
public struct LECreditBasedConnectionRefusal: WireCodable, Hashable, Sendable {
    public static let spsmNotSupported: UInt16 = 0x0002
    public var result: UInt16

    public init(result: UInt16 = LECreditBasedConnectionRefusal.spsmNotSupported) { self.result = result }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        for _ in 0..<4 {
            let offset = input.offset
            guard try input.readUInt16LE("refused channel field") == 0 else {
                throw ParseError(.invalidValue, at: offset, field: "refused channel field")
            }
        }
        result = try input.readUInt16LE("result")
    }

    public func encode(into output: inout ByteWriter) {
        for _ in 0..<4 { output.writeUInt16LE(0) }
        output.writeUInt16LE(result)
    }
}
