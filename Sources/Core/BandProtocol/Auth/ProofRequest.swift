import BandWire

/// Proof (reader → band, Auth Control Point write): the reader's answer to the challenge,
/// ``BandAuthenticator/readerProof(key:readerID:readerNonce:bandNonce:)``.
///
/// | offset | bytes | field |
/// |---|---|---|
/// | 0 | 1 | opcode 0x03 |
/// | 1 | 16 | reader proof |
public struct ProofRequest: Equatable, Sendable, WireCodable {
    public static let size = 17
    public var proof: AuthProof

    public init(proof: AuthProof) { self.proof = proof }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        try expectOpcode(.proof, in: &input)
        proof = try input.readAuthBytes("reader proof")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(AuthOpcode.proof.rawValue)
        proof.write(to: &output)
    }
}
