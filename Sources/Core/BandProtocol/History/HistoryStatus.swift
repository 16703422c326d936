/// Outcome byte in the band's History Control Point responses. Open enum.
///
/// | value | name | meaning |
/// |---|---|---|
/// | 0x00 | success | |
/// | 0x01 | cursorAhead | the cursor is beyond the newest record: this history is not the one the cursor came from (see ``HistoryFetchResponse/historyID``) |
/// | 0x02 | acknowledgementRejected | the acknowledgement does not match a transfer completed on this connection (end sequence and CRC), so nothing was dropped |
/// | 0x03 | aborted | the transfer stopped early on the reader's request; nothing may be acknowledged from it |
public struct HistoryStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let success = HistoryStatus(rawValue: 0x00)
    public static let cursorAhead = HistoryStatus(rawValue: 0x01)
    public static let acknowledgementRejected = HistoryStatus(rawValue: 0x02)
    public static let aborted = HistoryStatus(rawValue: 0x03)

    public var description: String {
        switch self {
        case .success: "success"
        case .cursorAhead: "cursor ahead of history"
        case .acknowledgementRejected: "acknowledgement rejected"
        case .aborted: "aborted"
        default: "history status 0x\(String(rawValue, radix: 16))"
        }
    }
}
