import BandWire

/// LE Set Advertising Enable (Core 5.4 Vol 4 Part E §7.8.9).
///
/// | bytes | field |
/// |---|---|
/// | u8 | 1 enable, 0 disable |
public struct LESetAdvertisingEnable: HCICommandParameters, WireDecodable, Hashable, Sendable {
    public var opcode: HCIOpcode { .leSetAdvertisingEnable }
    public var enable: Bool

    public init(_ enable: Bool) { self.enable = enable }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        let offset = input.offset
        switch try input.readUInt8("advertising enable") {
        case 0: enable = false
        case 1: enable = true
        default: throw ParseError(.invalidValue, at: offset, field: "advertising enable")
        }
    }

    public func encode(into output: inout ByteWriter) { output.writeUInt8(enable ? 1 : 0) }
}
