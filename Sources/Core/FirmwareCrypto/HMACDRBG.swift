/// HMAC_DRBG with HMAC-SHA256 (NIST SP 800-90A Rev. 1 §10.1.2): the band's deterministic random
/// bit generator. The board supplies the entropy (QEMU: a seed the host passes; an nRF52: its RNG
/// peripheral), the DRBG stretches it into the band's nonces.
///
/// | function | SP 800-90A Rev. 1 |
/// |---|---|
/// | `HMAC_DRBG_Update(provided_data, K, V)` | §10.1.2.2 |
/// | instantiate: K = 0x00…, V = 0x01…, Update(entropy ‖ nonce ‖ personalization) | §10.1.2.3 |
/// | reseed: Update(entropy ‖ additional input), counter = 1 | §10.1.2.4 |
/// | generate: V = HMAC(K, V) until enough bytes, then Update(additional input) | §10.1.2.5 |
///
/// Security strength 256 bits: instantiate and reseed require at least 32 bytes of entropy
/// (Table 2). Requests are limited to 2^16 bytes (the 2^19-bit `max_number_of_bits_per_request`)
/// and the generator refuses to run past `reseedInterval` requests without a reseed (§9.3.1 step 6).
/// Checked against NIST CAVP `HMAC_DRBG.rsp` vectors (FirmwareCryptoTests).
public struct HMACDRBG {
    public enum Failure: Error, Equatable {
        /// Fewer than 32 bytes of entropy input (the byte count given).
        case entropyTooShort(Int)
        /// More bytes asked for in one request than SP 800-90A allows (the byte count asked for).
        case requestTooLarge(Int)
        /// `reseedInterval` requests have been served since the last (re)seed.
        case reseedRequired
    }

    public static let minimumEntropyByteCount = 32
    public static let maximumRequestByteCount = 1 << 16

    private var key: Digest256
    private var value: Digest256
    /// `reseed_counter`: requests served since the last (re)seed, plus one.
    public private(set) var reseedCounter: UInt64
    public let reseedInterval: UInt64

    /// Instantiates from `entropy` (≥ 32 bytes), a `nonce` and an optional `personalization` string.
    public init(
        entropy: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer,
        personalization: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0),
        reseedInterval: UInt64 = 1 << 48
    ) throws(Failure) {
        guard entropy.count >= Self.minimumEntropyByteCount else { throw .entropyTooShort(entropy.count) }
        key = Digest256()
        value = Digest256()
        for index in 0..<Digest256.byteCount { value.bytes[index] = 0x01 }
        reseedCounter = 1
        self.reseedInterval = reseedInterval
        update(entropy, nonce, personalization)
    }

    /// Mixes fresh `entropy` (≥ 32 bytes) and optional `additionalInput` into the state.
    public mutating func reseed(
        entropy: UnsafeRawBufferPointer,
        additionalInput: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0)
    ) throws(Failure) {
        guard entropy.count >= Self.minimumEntropyByteCount else { throw .entropyTooShort(entropy.count) }
        update(entropy, additionalInput, UnsafeRawBufferPointer(start: nil, count: 0))
        reseedCounter = 1
    }

    /// Fills `output` with pseudorandom bytes.
    public mutating func generate(
        into output: UnsafeMutableRawBufferPointer,
        additionalInput: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0)
    ) throws(Failure) {
        guard output.count <= Self.maximumRequestByteCount else { throw .requestTooLarge(output.count) }
        guard reseedCounter <= reseedInterval else { throw .reseedRequired }
        let none = UnsafeRawBufferPointer(start: nil, count: 0)
        if additionalInput.count > 0 { update(additionalInput, none, none) }
        var written = 0
        while written < output.count {
            value = mac(value)
            for index in 0..<Digest256.byteCount where written < output.count {
                output[written] = value.bytes[index]
                written += 1
            }
        }
        update(additionalInput, none, none)
        reseedCounter += 1
    }

    /// HMAC_DRBG_Update (§10.1.2.2) with provided_data = first ‖ second ‖ third.
    private mutating func update(_ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer, _ third: UnsafeRawBufferPointer) {
        let provided = first.count + second.count + third.count
        for round: UInt8 in 0...1 {
            if round == 1 && provided == 0 { return }
            var mac = HMAC(key: key)
            mac.update(value)
            mac.update(byte: round)
            mac.update(first)
            mac.update(second)
            mac.update(third)
            key = mac.finalize()
            value = self.mac(value)
        }
    }

    private func mac(_ message: Digest256) -> Digest256 {
        var mac = HMAC(key: key)
        mac.update(message)
        return mac.finalize()
    }
}
