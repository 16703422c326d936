import BandWire

/// Acknowledge response (band → reader, History Control Point indication).
///
/// On success the records before the acknowledged end are erased and `oldestSequence` says where
/// history now starts; with ``HistoryStatus/acknowledgementRejected`` nothing was erased.
///
/// | offset | bytes | field |
/// |---|---|---|
/// | 0 | 1 | opcode 0x83 |
/// | 1 | 1 | status (``HistoryStatus``) |
/// | 2 | 4 | oldest available sequence after the acknowledgement, uint32 LE |
/// | 6 | 4 | next sequence (one past the newest record), uint32 LE |
public struct HistoryAcknowledgeResponse: Hashable, Sendable, WireCodable {
    public static let size = 10
    public var status: HistoryStatus
    public var oldestSequence: UInt32
    public var nextSequence: UInt32

    public init(status: HistoryStatus, oldestSequence: UInt32, nextSequence: UInt32) {
        self.status = status
        self.oldestSequence = oldestSequence
        self.nextSequence = nextSequence
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        try expectOpcode(.acknowledgeResponse, in: &input)
        status = HistoryStatus(rawValue: try input.readUInt8("history status"))
        oldestSequence = try input.readUInt32LE("oldest sequence")
        nextSequence = try input.readUInt32LE("next sequence")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(HistoryOpcode.acknowledgeResponse.rawValue)
        output.writeUInt8(status.rawValue)
        output.writeUInt32LE(oldestSequence)
        output.writeUInt32LE(nextSequence)
    }
}
