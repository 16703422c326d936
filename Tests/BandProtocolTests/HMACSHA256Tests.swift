import CryptoOracle
import BandTestSupport
import BandWire
import Testing

@Suite("HMAC-SHA256 of the test oracle (OpenSSL libcrypto)")
struct HMACSHA256Tests {
    @Test("RFC 4231 test case 1: 20-byte key, 'Hi There'")
    func rfc4231Case1() throws {
        let tag = try HMACSHA256.authenticationCode(for: Array("Hi There".utf8), key: [UInt8](repeating: 0x0B, count: 20))
        #expect(tag.description == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
    }

    @Test("RFC 4231 test case 2: key shorter than the block ('Jefe')")
    func rfc4231Case2() throws {
        let tag = try HMACSHA256.authenticationCode(for: Array("what do ya want for nothing?".utf8), key: Array("Jefe".utf8))
        #expect(tag.description == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test("RFC 4231 test case 6: 131-byte key is hashed first")
    func rfc4231Case6() throws {
        let tag = try HMACSHA256.authenticationCode(
            for: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            key: [UInt8](repeating: 0xAA, count: 131))
        #expect(tag.description == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test("Feeding the message in parts gives the same tag as one shot")
    func streamingEqualsOneShot() throws {
        let key = Array("Jefe".utf8)
        var mac = try HMACSHA256(key: key)
        try mac.update(Array("what do ya ".utf8))
        try mac.update([])
        try mac.update(Array("want for nothing?".utf8))
        let tag = try mac.finalize()
        #expect(tag == (try HMACSHA256.authenticationCode(for: Array("what do ya want for nothing?".utf8), key: key)))
    }

    @Test("Tags that differ in one bit compare unequal")
    func digestEqualityIsExact() throws {
        let a = try HMACSHA256.authenticationCode(for: [1, 2, 3], key: [9])
        let b = try HMACSHA256.authenticationCode(for: [1, 2, 2], key: [9])
        #expect(a != b)
        #expect(a == a)
    }
}
