import BandATT
import BandTrace
import BandWire

/// A place where a trace stops making sense, said the way a user can find it: record index
/// and byte offset in the file.
public struct TraceDamage: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable {
        /// The btsnoop framing itself is broken: nothing after it can be read.
        case framing
        /// The file ends inside its last record (a capture cut off mid-write).
        case truncatedTail
        /// One HCI packet or L2CAP frame is malformed; the records around it are fine.
        case packet
        /// One ATT PDU does not parse.
        case attPDU
        /// The file could not be opened or read: not damage in the data, an I/O failure.
        case io
    }

    public var kind: Kind
    /// Zero-based record index; nil for the file header.
    public var recordIndex: Int?
    /// Byte offset in the file of the record (or header) at fault.
    public var offset: Int
    /// What is wrong, without the place.
    public var reason: String

    public init(kind: Kind, recordIndex: Int?, offset: Int, reason: String) {
        self.kind = kind
        self.recordIndex = recordIndex
        self.offset = offset
        self.reason = reason
    }

    /// Whether the records after this one can still be read (they are, with `--keep-going`).
    public var leavesRestReadable: Bool { kind == .packet || kind == .attPDU }
    /// Whether this is bad data (exit 65) rather than a failure to read the file (exit 1).
    public var isBadData: Bool { kind != .io }

    public var description: String {
        let place = recordIndex.map { "record \($0) at byte offset \(offset)" } ?? "byte offset \(offset)"
        return "\(place): \(reason)"
    }

    public init(_ error: BtsnoopError) {
        // BtsnoopError says "<place>: <what>"; keep only the what.
        let text = error.description
        let reason = text.firstRange(of: ": ").map { String(text[$0.upperBound...]) } ?? text
        switch error.kind {
        case .system:
            self.init(kind: .io, recordIndex: error.recordIndex, offset: error.offset, reason: reason)
        case .truncatedRecordData, .truncatedRecordHeader:
            self.init(kind: .truncatedTail, recordIndex: error.recordIndex, offset: error.offset, reason: reason)
        default:
            self.init(kind: .framing, recordIndex: error.recordIndex, offset: error.offset, reason: reason)
        }
    }

    public init(_ anomaly: TraceAnomaly) {
        let text = anomaly.description
        let prefix = "record \(anomaly.recordIndex) at byte offset \(anomaly.recordOffset): "
        let reason = text.hasPrefix(prefix) ? String(text.dropFirst(prefix.count)) : text
        self.init(kind: .packet, recordIndex: anomaly.recordIndex, offset: anomaly.recordOffset, reason: reason)
    }

    public init(pduError: ParseError, opcode: ATTOpcode?, recordIndex: Int, recordOffset: Int) {
        let name = opcode.map(\.description) ?? "empty ATT PDU"
        self.init(kind: .attPDU, recordIndex: recordIndex, offset: recordOffset, reason: "malformed \(name): \(pduError) within the PDU")
    }
}
