import BandWire

/// Any value a reader writes to the History Control Point, dispatched on its opcode.
///
/// An opcode BandKit does not know is ``ParseError/Kind/unsupported`` at offset 0 (the band
/// answers such a write with ATT error 0x13 Value Not Allowed); a known opcode with the wrong
/// length is `truncated` or `trailingBytes` (the band answers 0x0D Invalid Attribute Value Length).
public enum HistoryRequest: Hashable, Sendable, WireCodable {
    case fetch(HistoryFetchRequest)
    case acknowledge(HistoryAcknowledgeRequest)
    case abort(HistoryAbortRequest)

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        switch HistoryOpcode(rawValue: try input.peekUInt8("history opcode")) {
        case .fetch: self = .fetch(try HistoryFetchRequest(parsing: &input))
        case .acknowledge: self = .acknowledge(try HistoryAcknowledgeRequest(parsing: &input))
        case .abort: self = .abort(try HistoryAbortRequest(parsing: &input))
        default: throw input.error(.unsupported, "history request opcode")
        }
    }

    public func encode(into output: inout ByteWriter) {
        switch self {
        case .fetch(let m): m.encode(into: &output)
        case .acknowledge(let m): m.encode(into: &output)
        case .abort(let m): m.encode(into: &output)
        }
    }
}
