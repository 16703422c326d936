import BandWire

/// Proof response (band → reader, Auth Control Point indication). On success the connection is
/// authenticated and the band proves the same key back
/// (``BandAuthenticator/bandProof(key:readerID:readerNonce:bandNonce:)``); a reader that cannot
/// verify it is talking to a band that does not hold its key and disconnects.
///
/// | offset | bytes | field | present |
/// |---|---|---|---|
/// | 0 | 1 | opcode 0x83 | always |
/// | 1 | 1 | status (``AuthStatus``): success, wrongProof, noChallenge, lockedOut | always |
/// | 2 | 16 | band proof | status = success |
public struct ProofResponse: Equatable, Sendable, WireCodable {
    public var status: AuthStatus
    public var bandProof: AuthProof?

    public init(status: AuthStatus, bandProof: AuthProof? = nil) {
        precondition((status == .success) == (bandProof != nil), "a proof goes with success and only with success")
        self.status = status
        self.bandProof = bandProof
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        try expectOpcode(.proofResponse, in: &input)
        status = AuthStatus(rawValue: try input.readUInt8("auth status"))
        bandProof = status == .success ? try input.readAuthBytes("band proof") : nil
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(AuthOpcode.proofResponse.rawValue)
        output.writeUInt8(status.rawValue)
        bandProof?.write(to: &output)
    }
}
