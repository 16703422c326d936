import BandWire

/// LE Read Local P-256 Public Key Complete (LE Meta subevent 0x08, 64 key bytes) and LE
/// Generate DHKey Complete (subevent 0x09, 32 key bytes) (Core 5.4 Vol 4 Part E §7.7.65.8,
/// §7.7.65.9): a status, then the key the controller computed, least significant octet first.
///
/// | bytes | field |
/// |---|---|
/// | u8 | subevent code |
/// | u8 | status (e.g. 0x12 when the remote public key is not on the curve) |
/// | 64 or 32 | public key X ‖ Y, or DHKey |
public struct LESecureConnectionsKeyEvent: WireCodable, Equatable, Sendable {
    public var subevent: LEMetaSubevent
    public var status: HCIStatus
    /// 64 bytes for a public key, 32 for a DHKey.
    public var key: FixedBytes<64>

    public init(subevent: LEMetaSubevent, status: HCIStatus, key: FixedBytes<64>) {
        self.subevent = subevent
        self.status = status
        self.key = key
    }

    static func keyLength(_ subevent: LEMetaSubevent) -> Int? {
        switch subevent {
        case .readLocalP256PublicKeyComplete: return 64
        case .generateDHKeyComplete: return 32
        default: return nil
        }
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        let codeOffset = input.offset
        subevent = LEMetaSubevent(rawValue: try input.readUInt8("LE subevent code"))
        guard let length = Self.keyLength(subevent) else { throw ParseError(.invalidValue, at: codeOffset, field: "LE subevent code") }
        status = HCIStatus(rawValue: try input.readUInt8("status"))
        key = try FixedBytes(copying: try input.readBytes(length, "key"))
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(subevent.rawValue)
        output.writeUInt8(status.rawValue)
        key.write(to: &output)
    }
}
