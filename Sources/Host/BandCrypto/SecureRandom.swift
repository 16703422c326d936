import SystemRandom

/// Cryptographically secure random bytes for pairing keys and authentication challenges: values
/// an attacker must not predict. They come from BandKit's one random source, the kernel's CSPRNG
/// (SystemRandom's ``KernelRandom``), which HealthModel's sample identifiers use too; this type
/// only reports its failures as ``CryptoError`` like the rest of BandCrypto. Everything else in
/// the simulator draws from its own seeded PRNG so runs are reproducible.
public enum SecureRandom {
    /// Fills `buffer` with random bytes.
    public static func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(CryptoError) {
        do throws(RandomSourceError) {
            try KernelRandom.fill(buffer)
        } catch {
            throw CryptoError(function: error.call, code: UInt(clamping: Int(error.errno)), reason: error.description)
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
