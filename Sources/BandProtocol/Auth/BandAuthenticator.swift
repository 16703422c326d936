import BandCrypto
import BandWire

/// The two proofs of the band's challenge–response authentication, shared by band and reader.
///
/// ```
/// readerProof = HMAC-SHA256(key, "BandKit auth v1 reader" ‖ readerID ‖ readerNonce ‖ bandNonce)[0..<16]
/// bandProof   = HMAC-SHA256(key, "BandKit auth v1 band"   ‖ readerID ‖ readerNonce ‖ bandNonce)[0..<16]
/// ```
/// `readerID` and `readerNonce` are 8 bytes little-endian, `bandNonce` 16 bytes, labels ASCII
/// without terminator. The distinct labels keep either side's proof from being reflected back
/// as the other's; both nonces make each proof fresh for both sides. The reader verifies
/// `bandProof` with ``verify(_:equals:)`` (constant time).
public enum BandAuthenticator {
    static let readerLabel: StaticString = "BandKit auth v1 reader"
    static let bandLabel: StaticString = "BandKit auth v1 band"

    /// The proof a reader sends in ``ProofRequest``.
    public static func readerProof(key: BandKey, readerID: UInt64, readerNonce: UInt64, bandNonce: BandNonce) throws(CryptoError) -> AuthProof {
        try proof(label: readerLabel, key: key, readerID: readerID, readerNonce: readerNonce, bandNonce: bandNonce)
    }

    /// The proof the band returns in ``ProofResponse``.
    public static func bandProof(key: BandKey, readerID: UInt64, readerNonce: UInt64, bandNonce: BandNonce) throws(CryptoError) -> AuthProof {
        try proof(label: bandLabel, key: key, readerID: readerID, readerNonce: readerNonce, bandNonce: bandNonce)
    }

    /// Constant-time comparison of a received proof with the expected one.
    public static func verify(_ received: AuthProof, equals expected: AuthProof) -> Bool {
        received.withUnsafeBytes { r in expected.withUnsafeBytes { e in constantTimeEqual(r, e) } }
    }

    static func proof(label: StaticString, key: BandKey, readerID: UInt64, readerNonce: UInt64, bandNonce: BandNonce) throws(CryptoError) -> AuthProof {
        var fields = InlineArray<16, UInt8>(repeating: 0)
        for i in 0..<8 {
            fields[i] = UInt8(truncatingIfNeeded: readerID >> (8 * UInt64(i)))
            fields[8 + i] = UInt8(truncatingIfNeeded: readerNonce >> (8 * UInt64(i)))
        }
        let tag = try key.withUnsafeBytes { (keyBytes) throws(CryptoError) -> SHA256Digest in
            var mac = try HMACSHA256(key: keyBytes)
            try mac.update(UnsafeRawBufferPointer(start: label.utf8Start, count: label.utf8CodeUnitCount))
            try fields.span.withUnsafeBytes { (raw) throws(CryptoError) in try mac.update(raw) }
            try bandNonce.withUnsafeBytes { (raw) throws(CryptoError) in try mac.update(raw) }
            return try mac.finalize()
        }
        return tag.withUnsafeBytes { raw in
            // 16 of 32 bytes always fit 16: the initializer cannot fail here.
            var out = AuthProof()
            for i in 0..<16 { _ = out.append(raw[i]) }
            return out
        }
    }
}
