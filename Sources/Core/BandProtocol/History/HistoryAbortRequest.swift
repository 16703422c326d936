import BandWire

/// Abort (reader → band, History Control Point write): stop the running transfer. The band
/// answers with ``HistoryTransferComplete`` carrying ``HistoryStatus/aborted``.
///
/// | offset | bytes | field |
/// |---|---|---|
/// | 0 | 1 | opcode 0x03 |
public struct HistoryAbortRequest: Hashable, Sendable, WireCodable {
    public static let size = 1
    public init() {}

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        try expectOpcode(.abort, in: &input)
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(HistoryOpcode.abort.rawValue)
    }
}
