import BandWire

/// Fetch (reader → band, History Control Point write): send the records from `cursor` on.
///
/// `cursor` is the sequence number of the first record the reader does not have yet (0 for a
/// reader that never synced). `maxCount` bounds the transfer so a reader can sync in slices
/// and acknowledge each; 0 asks for everything available.
///
/// | offset | bytes | field |
/// |---|---|---|
/// | 0 | 1 | opcode 0x01 |
/// | 1 | 4 | cursor, uint32 LE |
/// | 5 | 2 | max records, uint16 LE (0 = all) |
public struct HistoryFetchRequest: Hashable, Sendable, WireCodable {
    public static let size = 7
    public var cursor: UInt32
    public var maxCount: UInt16

    public init(cursor: UInt32, maxCount: UInt16 = 0) {
        self.cursor = cursor
        self.maxCount = maxCount
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        try expectOpcode(.fetch, in: &input)
        cursor = try input.readUInt32LE("cursor")
        maxCount = try input.readUInt16LE("max records")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(HistoryOpcode.fetch.rawValue)
        output.writeUInt32LE(cursor)
        output.writeUInt16LE(maxCount)
    }
}

/// Reads the opcode byte and insists on `expected` (each message type parses only itself;
/// ``HistoryRequest`` and ``HistoryResponse`` dispatch on the opcode).
func expectOpcode(_ expected: HistoryOpcode, in input: inout ByteCursor) throws(ParseError) {
    let at = input.offset
    guard try input.readUInt8("history opcode") == expected.rawValue else {
        throw ParseError(.invalidValue, at: at, field: "history opcode")
    }
}
