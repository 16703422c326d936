import FirmwareCrypto
import Testing

@Suite("HMAC_DRBG (SP 800-90A) over the in-house HMAC-SHA256")
struct HMACDRBGTests {
    /// Runs CAVP's procedure: instantiate, optionally reseed, generate 1024 bits twice, return the second.
    private func cavpReturnedBits(entropy: String, nonce: String, reseed: String? = nil) throws -> [UInt8] {
        let entropyBytes = hexBytes(entropy), nonceBytes = hexBytes(nonce)
        var drbg = try entropyBytes.withUnsafeBytes { e in
            try nonceBytes.withUnsafeBytes { n in try HMACDRBG(entropy: e, nonce: n) }
        }
        if let reseed {
            let reseedBytes = hexBytes(reseed)
            try reseedBytes.withUnsafeBytes { r in try drbg.reseed(entropy: r) }
        }
        var output = [UInt8](repeating: 0, count: 128)
        for _ in 0..<2 {
            try output.withUnsafeMutableBytes { o in try drbg.generate(into: o) }
        }
        return output
    }

    @Test("NIST CAVP HMAC_DRBG.rsp [SHA-256], no reseed, COUNT = 0")
    func cavpWithoutReseed() throws {
        let bits = try cavpReturnedBits(entropy: "ca851911349384bffe89de1cbdc46e6831e44d34a4fb935ee285dd14b71a7488",
                                        nonce: "659ba96c601dc69fc902940805ec0ca8")
        #expect(bits == hexBytes("""
            e528e9abf2dece54d47c7e75e5fe302149f817ea9fb4bee6f4199697d04d5b89d54fbb978a15b5c443c9ec21036d2460\
            b6f73ebad0dc2aba6e624abf07745bc107694bb7547bb0995f70de25d6b29e2d3011bb19d27676c07162c8b5ccde0668\
            961df86803482cb37ed6d5c0bb8d50cf1f50d476aa0458bdaba806f48be9dcb8
            """))
    }

    @Test("NIST CAVP HMAC_DRBG.rsp [SHA-256], with reseed, COUNT = 0")
    func cavpWithReseed() throws {
        let bits = try cavpReturnedBits(entropy: "06032cd5eed33f39265f49ecb142c511da9aff2af71203bffaf34a9ca5bd9c0d",
                                        nonce: "0e66f71edc43e42a45ad3c6fc6cdc4df",
                                        reseed: "01920a4e669ed3a85ae8a33b35a74ad7fb2a6bb4cf395ce00334a9c9a5a5d552")
        #expect(bits == hexBytes("""
            76fc79fe9b50beccc991a11b5635783a83536add03c157fb30645e611c2898bb2b1bc215000209208cd506cb28da2a51\
            bdb03826aaf2bd2335d576d519160842e7158ad0949d1a9ec3e66ea1b1a064b005de914eac2e9d4f2d72a8616a802254\
            22918250ff66a41bd2f864a6a38cc5b6499dc43f7f2bd09e1e0f8f5885935124
            """))
    }

    @Test("Too little entropy, too large a request and an exhausted reseed interval are refused")
    func limits() throws {
        let short = [UInt8](repeating: 7, count: 31), seed = [UInt8](repeating: 7, count: 32), nonce = [UInt8](repeating: 1, count: 16)
        #expect(throws: HMACDRBG.Failure.entropyTooShort(31)) {
            try short.withUnsafeBytes { e in try nonce.withUnsafeBytes { n in _ = try HMACDRBG(entropy: e, nonce: n) } }
        }
        var drbg = try seed.withUnsafeBytes { e in
            try nonce.withUnsafeBytes { n in try HMACDRBG(entropy: e, nonce: n, reseedInterval: 2) }
        }
        var big = [UInt8](repeating: 0, count: HMACDRBG.maximumRequestByteCount + 1)
        #expect(throws: HMACDRBG.Failure.requestTooLarge(HMACDRBG.maximumRequestByteCount + 1)) {
            try big.withUnsafeMutableBytes { o in try drbg.generate(into: o) }
        }
        var first = [UInt8](repeating: 0, count: 16), second = first, third = first
        try first.withUnsafeMutableBytes { o in try drbg.generate(into: o) }
        try second.withUnsafeMutableBytes { o in try drbg.generate(into: o) }
        #expect(first != second)
        #expect(throws: HMACDRBG.Failure.reseedRequired) {
            try third.withUnsafeMutableBytes { o in try drbg.generate(into: o) }
        }
        #expect(throws: HMACDRBG.Failure.entropyTooShort(31)) {
            try short.withUnsafeBytes { e in try drbg.reseed(entropy: e) }
        }
        try seed.withUnsafeBytes { e in try drbg.reseed(entropy: e) }
        try third.withUnsafeMutableBytes { o in try drbg.generate(into: o) }
        #expect(drbg.reseedCounter == 2)
    }
}
