import FirmwareCrypto

/// Known-answer tests the firmware runs on the chip itself (link message 0x06): the same vectors
/// as FirmwareCryptoTests on the host, so a miscompiled or mis-linked image cannot pass for a good one.
enum SelfTest {
    /// Bit 0: SHA-256("abc") (FIPS 180-4). Bit 1: HMAC-SHA256 RFC 4231 test case 2. Bit 2: HMAC_DRBG
    /// CAVP [SHA-256] no-reseed COUNT 0, the first 32 of the 128 returned bytes.
    static func run() -> UInt8 {
        var passed: UInt8 = 0
        let abc: StaticString = "abc"
        let abcDigest = abc.withUTF8Buffer { SHA256.hash(UnsafeRawBufferPointer($0)) }
        if matches(abcDigest, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") { passed |= 1 }

        let key: StaticString = "Jefe", data: StaticString = "what do ya want for nothing?"
        let tag = key.withUTF8Buffer { k in
            data.withUTF8Buffer { d in HMAC.authenticationCode(for: UnsafeRawBufferPointer(d), key: UnsafeRawBufferPointer(k)) }
        }
        if matches(tag, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843") { passed |= 2 }

        var entropy = Digest256(), nonce = Digest256(), output = InlineArray<128, UInt8>(repeating: 0)
        decodeHex("ca851911349384bffe89de1cbdc46e6831e44d34a4fb935ee285dd14b71a7488", into: &entropy)
        decodeHex("659ba96c601dc69fc902940805ec0ca8", into: &nonce)
        let drbgPassed: Bool = entropy.withUnsafeBytes { e in
            nonce.withUnsafeBytes { n in
                do throws(HMACDRBG.Failure) {
                    var drbg = try HMACDRBG(entropy: e, nonce: UnsafeRawBufferPointer(rebasing: n[0..<16]))
                    var span = output.mutableSpan
                    try span.withUnsafeMutableBytes { o throws(HMACDRBG.Failure) in
                        try drbg.generate(into: o)
                        try drbg.generate(into: o)
                    }
                } catch { return false }
                var first = Digest256()
                for index in 0..<32 { first.bytes[index] = output[index] }
                return matches(first, "e528e9abf2dece54d47c7e75e5fe302149f817ea9fb4bee6f4199697d04d5b89")
            }
        }
        if drbgPassed { passed |= 4 }
        return passed
    }

    static func matches(_ digest: Digest256, _ hex: StaticString) -> Bool {
        var expected = Digest256()
        decodeHex(hex, into: &expected)
        return digest == expected
    }

    /// Up to 32 bytes from hex digits (constant vectors only).
    static func decodeHex(_ hex: StaticString, into digest: inout Digest256) {
        hex.withUTF8Buffer { digits in
            func nibble(_ c: UInt8) -> UInt8 { c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x61 + 10 }
            for index in 0..<min(digits.count / 2, Digest256.byteCount) {
                digest.bytes[index] = nibble(digits[2 * index]) << 4 | nibble(digits[2 * index + 1])
            }
        }
    }
}
