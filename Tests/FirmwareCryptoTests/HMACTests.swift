import CryptoOracle
import FirmwareCrypto
import SeededRandom
import Testing

@Suite("In-house HMAC-SHA256 (RFC 4231) and OpenSSL")
struct HMACTests {
    /// RFC 4231 §4.2–4.8 (test case 5, the truncated tag, is checked on its first 16 bytes).
    @Test("RFC 4231 test cases 1-7", arguments: [
        ("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", "4869205468657265",
         "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        ("4a656665", "7768617420646f2079612077616e7420666f72206e6f7468696e673f",
         "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        (String(repeating: "aa", count: 20), String(repeating: "dd", count: 50),
         "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        ("0102030405060708090a0b0c0d0e0f10111213141516171819", String(repeating: "cd", count: 50),
         "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        (String(repeating: "0c", count: 20), "546573742057697468205472756e636174696f6e",
         "a3b6167473100ee06e0c796c2955552b"),
        (String(repeating: "aa", count: 131),
         "54657374205573696e67204c6172676572205468616e20426c6f636b2d53697a65204b6579202d2048617368204b6579204669727374",
         "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        (String(repeating: "aa", count: 131),
         "5468697320697320612074657374207573696e672061206c6172676572207468616e20626c6f636b2d73697a65206b657920616e642061206c6172676572207468616e20626c6f636b2d73697a6520646174612e20546865206b6579206e6565647320746f20626520686173686564206265666f7265206265696e6720757365642062792074686520484d414320616c676f726974686d2e",
         "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ])
    func rfc4231(key: String, data: String, expected: String) {
        let tag = hexString(hmac(key: hexBytes(key), message: hexBytes(data)))
        #expect(tag.hasPrefix(expected))
    }

    /// Keys and messages of every length around the block size (64) and beyond, random contents:
    /// the tag equals OpenSSL's (CryptoOracle.HMACSHA256, EVP_MAC) byte for byte.
    @Test("Agrees with OpenSSL for keys 0-200 bytes and messages 0-300 bytes")
    func agreesWithOpenSSL() throws {
        var generator = SplitMix64(seed: 0x5EED_F1A4)
        for keyLength in stride(from: 0, through: 200, by: 3) {
            for messageLength in [0, 1, 55, 56, 63, 64, 65, 127, 128, 129, 300] {
                let key = (0..<keyLength).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
                let message = (0..<messageLength).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
                let ours = hmac(key: key, message: message)
                let openSSL = try CryptoOracle.HMACSHA256.authenticationCode(for: message, key: key)
                let openSSLBytes = openSSL.withUnsafeBytes { Array($0) }
                #expect(ours.withUnsafeBytes { Array($0) } == openSSLBytes, "key \(keyLength) B, message \(messageLength) B")
            }
        }
    }
}
