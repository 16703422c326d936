import BandWire

/// Pair (reader → band, Auth Control Point write): ask for a key for this reader.
///
/// The band asks its wearer to confirm (in the simulator `--confirm auto|ask|deny`), and on
/// success answers with a fresh random key in ``PairingResponse``, stores it in flash under
/// `readerID` (replacing any earlier key for the same ID) and counts the connection as
/// authenticated. The reader ID is chosen at random by the reader once and kept with the key.
///
/// | offset | bytes | field |
/// |---|---|---|
/// | 0 | 1 | opcode 0x01 |
/// | 1 | 8 | reader ID, uint64 LE |
public struct PairingRequest: Hashable, Sendable, WireCodable {
    public static let size = 9
    public var readerID: UInt64

    public init(readerID: UInt64) { self.readerID = readerID }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        try expectOpcode(.pair, in: &input)
        readerID = try input.readUInt64LE("reader ID")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(AuthOpcode.pair.rawValue)
        output.writeUInt64LE(readerID)
    }
}
