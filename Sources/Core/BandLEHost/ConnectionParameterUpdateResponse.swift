import BandWire

/// Connection Parameter Update Response's data (Core 5.4 Vol 3 Part A §4.21).
///
/// | bytes | field |
/// |---|---|
/// | u16 LE | result: 0 accepted, 1 rejected |
public struct ConnectionParameterUpdateResponse: WireCodable, Hashable, Sendable {
    public var accepted: Bool

    public init(accepted: Bool) { self.accepted = accepted }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        let offset = input.offset
        switch try input.readUInt16LE("connection parameter update result") {
        case 0: accepted = true
        case 1: accepted = false
        default: throw ParseError(.invalidValue, at: offset, field: "connection parameter update result")
        }
    }

    public func encode(into output: inout ByteWriter) { output.writeUInt16LE(accepted ? 0 : 1) }
}
