import BandWire
import FirmwareCrypto

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
///
/// HMAC-SHA256 is FirmwareCrypto's (in-house, no heap, no C; checked against RFC 4231 and
/// OpenSSL), so this module compiles with Embedded Swift for the band's microcontroller as well as
/// for the reader on Linux, and computing a proof cannot fail.
public enum BandAuthenticator {
    static let readerLabel: StaticString = "BandKit auth v1 reader"
    static let bandLabel: StaticString = "BandKit auth v1 band"

    /// The proof a reader sends in ``ProofRequest``.
    public static func readerProof(key: BandKey, readerID: UInt64, readerNonce: UInt64, bandNonce: BandNonce) -> AuthProof {
        proof(label: readerLabel, key: key, readerID: readerID, readerNonce: readerNonce, bandNonce: bandNonce)
    }

    /// The proof the band returns in ``ProofResponse``.
    public static func bandProof(key: BandKey, readerID: UInt64, readerNonce: UInt64, bandNonce: BandNonce) -> AuthProof {
        proof(label: bandLabel, key: key, readerID: readerID, readerNonce: readerNonce, bandNonce: bandNonce)
    }

    /// Constant-time comparison of a received proof with the expected one.
    public static func verify(_ received: AuthProof, equals expected: AuthProof) -> Bool {
        received.withUnsafeBytes { r in
            expected.withUnsafeBytes { e in
                guard r.count == e.count else { return false }
                var difference: UInt8 = 0
                for index in 0..<r.count { difference |= r[index] ^ e[index] }
                return difference == 0
            }
        }
    }

    static func proof(label: StaticString, key: BandKey, readerID: UInt64, readerNonce: UInt64, bandNonce: BandNonce) -> AuthProof {
        var fields = InlineArray<16, UInt8>(repeating: 0)
        for i in 0..<8 {
            fields[i] = UInt8(truncatingIfNeeded: readerID >> (8 * UInt64(i)))
            fields[8 + i] = UInt8(truncatingIfNeeded: readerNonce >> (8 * UInt64(i)))
        }
        let tag = key.withUnsafeBytes { keyBytes -> Digest256 in
            var mac = HMAC(key: keyBytes)
            mac.update(label)
            fields.span.withUnsafeBytes { mac.update($0) }
            bandNonce.withUnsafeBytes { mac.update($0) }
            return mac.finalize()
        }
        return tag.withUnsafeBytes { raw in
            // 16 of 32 bytes always fit 16: the initializer cannot fail here.
            var out = AuthProof()
            for i in 0..<16 { _ = out.append(raw[i]) }
            return out
        }
    }
}
