import BandWire

/// Challenge (reader → band, Auth Control Point write): "I am `readerID`; challenge me."
///
/// `readerNonce` is the reader's own random value; it goes into both proofs, so the band's
/// proof in ``ProofResponse`` is fresh for the reader too (mutual authentication: a recorded
/// session cannot be replayed to a reader).
///
/// | offset | bytes | field |
/// |---|---|---|
/// | 0 | 1 | opcode 0x02 |
/// | 1 | 8 | reader ID, uint64 LE |
/// | 9 | 8 | reader nonce, uint64 LE |
public struct ChallengeRequest: Hashable, Sendable, WireCodable {
    public static let size = 17
    public var readerID: UInt64
    public var readerNonce: UInt64

    public init(readerID: UInt64, readerNonce: UInt64) {
        self.readerID = readerID
        self.readerNonce = readerNonce
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        try expectOpcode(.challenge, in: &input)
        readerID = try input.readUInt64LE("reader ID")
        readerNonce = try input.readUInt64LE("reader nonce")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(AuthOpcode.challenge.rawValue)
        output.writeUInt64LE(readerID)
        output.writeUInt64LE(readerNonce)
    }
}
