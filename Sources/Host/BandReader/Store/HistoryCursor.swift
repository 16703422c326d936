/// Where history sync resumes: the band's history ID and the sequence number of the first
/// record not yet stored (docs/protocol.md, "Record sequence numbers and the flash ring").
///
/// Kept in the store's app state under ``key(device:)``, written in the same transaction as the
/// records it follows, so the cursor can never run ahead of (or lag behind) the samples.
/// Text form: `v1 <history ID, 8 hex digits> <next sequence, decimal> [<last minute stored, Unix s>]`.
public struct HistoryCursor: Hashable, Sendable, CustomStringConvertible {
    public var historyID: UInt32
    public var nextSequence: UInt32
    /// Start of the newest minute stored from history: where the next batch's coverage begins.
    public var lastMinute: UInt32?

    public init(historyID: UInt32, nextSequence: UInt32, lastMinute: UInt32? = nil) {
        self.historyID = historyID
        self.nextSequence = nextSequence
        self.lastMinute = lastMinute
    }

    /// The app-state key of one band's cursor.
    public static func key(device: String) -> String { "history-cursor " + device }

    public init?(stored text: String) {
        let parts = text.split(separator: " ")
        guard parts.count == 3 || parts.count == 4, parts[0] == "v1", parts[1].count == 8,
              let id = UInt32(parts[1], radix: 16), let next = UInt32(parts[2]) else { return nil }
        historyID = id
        nextSequence = next
        if parts.count == 4 {
            guard let minute = UInt32(parts[3]) else { return nil }
            lastMinute = minute
        }
    }

    public var stored: String {
        let hex = String(historyID, radix: 16)
        let base = "v1 \(String(repeating: "0", count: 8 - hex.count))\(hex) \(nextSequence)"
        return lastMinute.map { base + " \($0)" } ?? base
    }

    public var description: String { stored }
}
