import BandWire

/// Challenge response (band → reader, Auth Control Point indication): the band's random nonce.
/// A new challenge replaces any earlier one on the connection; each can be answered once.
///
/// | offset | bytes | field | present |
/// |---|---|---|---|
/// | 0 | 1 | opcode 0x82 | always |
/// | 1 | 1 | status (``AuthStatus``): success, unknownReader, lockedOut | always |
/// | 2 | 16 | band nonce | status = success |
public struct ChallengeResponse: Equatable, Sendable, WireCodable {
    public var status: AuthStatus
    public var bandNonce: BandNonce?

    public init(status: AuthStatus, bandNonce: BandNonce? = nil) {
        precondition((status == .success) == (bandNonce != nil), "a nonce goes with success and only with success")
        self.status = status
        self.bandNonce = bandNonce
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        try expectOpcode(.challengeResponse, in: &input)
        status = AuthStatus(rawValue: try input.readUInt8("auth status"))
        bandNonce = status == .success ? try input.readAuthBytes("band nonce") : nil
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(AuthOpcode.challengeResponse.rawValue)
        output.writeUInt8(status.rawValue)
        bandNonce?.write(to: &output)
    }
}
