import BandWire

/// Any value the band indicates on the History Control Point, dispatched on its opcode.
/// An unknown opcode is ``ParseError/Kind/unsupported`` at offset 0.
public enum HistoryResponse: Hashable, Sendable, WireCodable {
    case fetch(HistoryFetchResponse)
    case transferComplete(HistoryTransferComplete)
    case acknowledge(HistoryAcknowledgeResponse)

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        switch HistoryOpcode(rawValue: try input.peekUInt8("history opcode")) {
        case .fetchResponse: self = .fetch(try HistoryFetchResponse(parsing: &input))
        case .transferComplete: self = .transferComplete(try HistoryTransferComplete(parsing: &input))
        case .acknowledgeResponse: self = .acknowledge(try HistoryAcknowledgeResponse(parsing: &input))
        default: throw input.error(.unsupported, "history response opcode")
        }
    }

    public func encode(into output: inout ByteWriter) {
        switch self {
        case .fetch(let m): m.encode(into: &output)
        case .transferComplete(let m): m.encode(into: &output)
        case .acknowledge(let m): m.encode(into: &output)
        }
    }
}
