import CCrypto

/// Cryptographically secure random bytes from OpenSSL's DRBG (`RAND_bytes`).
///
/// Used for pairing keys and authentication challenges: values an attacker must not predict.
/// Everything else in the simulator draws from its own seeded PRNG so runs are reproducible.
public enum SecureRandom {
    /// Fills `buffer` with random bytes.
    public static func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(CryptoError) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        guard buffer.count <= Int(Int32.max) else { throw CryptoError(function: "RAND_bytes", code: 0, reason: "request too large") }
        guard RAND_bytes(base.assumingMemoryBound(to: UInt8.self), Int32(buffer.count)) == 1 else {
            throw lastOpenSSLError("RAND_bytes")
        }
    }

    /// `count` random bytes as an array (cold paths).
    public static func bytes(count: Int) throws(CryptoError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        let result: Result<Void, CryptoError> = out.withUnsafeMutableBytes { raw in
            do throws(CryptoError) { try fill(raw); return .success(()) } catch { return .failure(error) }
        }
        try result.get()
        return out
    }
}
