import BandWire

/// Pair response (band → reader, Auth Control Point indication).
///
/// The key is present only on success. It crosses the air once, at pairing, which the wearer
/// has just confirmed on the band; on a real radio that exchange runs over an encrypted LE
/// Secure Connections link (see docs/protocol.md for the threat model).
///
/// | offset | bytes | field | present |
/// |---|---|---|---|
/// | 0 | 1 | opcode 0x81 | always |
/// | 1 | 1 | status (``AuthStatus``) | always |
/// | 2 | 16 | key | status = success |
public struct PairingResponse: Equatable, Sendable, WireCodable {
    public var status: AuthStatus
    public var key: BandKey?

    public init(status: AuthStatus, key: BandKey? = nil) {
        precondition((status == .success) == (key != nil), "a key goes with success and only with success")
        self.status = status
        self.key = key
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        try expectOpcode(.pairResponse, in: &input)
        status = AuthStatus(rawValue: try input.readUInt8("auth status"))
        key = status == .success ? try input.readAuthBytes("key") : nil
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(AuthOpcode.pairResponse.rawValue)
        output.writeUInt8(status.rawValue)
        key?.write(to: &output)
    }
}
