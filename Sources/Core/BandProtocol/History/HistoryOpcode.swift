/// First byte of every History Control Point value. Requests from the reader have bit 7 clear;
/// the band's indicated responses are `0x80 | request`. Open: unknown values survive parsing.
///
/// | value | message | direction |
/// |---|---|---|
/// | 0x01 | ``HistoryFetchRequest`` | reader → band (write) |
/// | 0x02 | ``HistoryAcknowledgeRequest`` | reader → band (write) |
/// | 0x03 | ``HistoryAbortRequest`` | reader → band (write) |
/// | 0x81 | ``HistoryFetchResponse`` | band → reader (indicate) |
/// | 0x82 | ``HistoryTransferComplete`` | band → reader (indicate) |
/// | 0x83 | ``HistoryAcknowledgeResponse`` | band → reader (indicate) |
public struct HistoryOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let fetch = HistoryOpcode(rawValue: 0x01)
    public static let acknowledge = HistoryOpcode(rawValue: 0x02)
    public static let abort = HistoryOpcode(rawValue: 0x03)
    public static let fetchResponse = HistoryOpcode(rawValue: 0x81)
    public static let transferComplete = HistoryOpcode(rawValue: 0x82)
    public static let acknowledgeResponse = HistoryOpcode(rawValue: 0x83)

    public var description: String {
        switch self {
        case .fetch: "fetch"
        case .acknowledge: "acknowledge"
        case .abort: "abort"
        case .fetchResponse: "fetch response"
        case .transferComplete: "transfer complete"
        case .acknowledgeResponse: "acknowledge response"
        default: "history opcode 0x\(String(rawValue, radix: 16))"
        }
    }
}
