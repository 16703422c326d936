import BandWire

/// LE Generate DHKey [v1] (Core 5.4 Vol 4 Part E §7.8.37): the controller computes the
/// Diffie-Hellman key from the peer's P-256 public key and its own private key, answering with
/// Command Status and then LE Generate DHKey Complete.
///
/// | bytes | field |
/// |---|---|
/// | 32 | remote public key X, least significant octet first |
/// | 32 | remote public key Y |
public struct LEGenerateDHKey: HCICommandParameters, WireDecodable, Equatable, Sendable {
    public var opcode: HCIOpcode { .leGenerateDHKey }
    public var remotePublicKey: FixedBytes<64>

    public init(remotePublicKey: FixedBytes<64>) { self.remotePublicKey = remotePublicKey }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        remotePublicKey = try FixedBytes(copying: try input.readBytes(64, "remote P-256 public key"))
    }

    public func encode(into output: inout ByteWriter) { remotePublicKey.write(to: &output) }
}
