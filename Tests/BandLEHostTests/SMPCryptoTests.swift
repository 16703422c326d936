import BandLEHost
import BandTestSupport
import BandWire
import FirmwareCrypto
import Testing

/// AES-128, AES-CMAC and the LE Secure Connections functions against published sample data:
/// FIPS 197 Appendix C.1, and Core 5.4 Vol 3 Part H Appendix D.1 (AES-CMAC, the RFC 4493
/// examples), D.2 (f4), D.3 (f5), D.4 (f6), D.5 (g2). Values are written most significant
/// octet first, as the specification prints them.
@Suite struct SMPCryptoTests {
    func block(_ hex: String) -> AESBlock { bytes(hex).withUnsafeBytes { AESBlock($0) } }
    /// A 256-bit value printed most significant first, held least significant first as on the wire.
    func coordinate(_ hex: String) -> P256Coordinate { Array(bytes(hex).reversed()).withUnsafeBytes { P256Coordinate($0) } }

    @Test func aesMatchesFIPS197AppendixC1() {
        let cipher = AES128(key: block("00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f"))
        #expect(cipher.encrypt(block("00 11 22 33 44 55 66 77 88 99 aa bb cc dd ee ff")) == block("69 c4 e0 d8 6a 7b 04 30 d8 cd b7 80 70 b4 c5 5a"))
    }

    @Test(arguments: [
        ("", "bb1d6929 e9593728 7fa37d12 9b756746"),
        ("6bc1bee2 2e409f96 e93d7e11 7393172a", "070a16b4 6b4d4144 f79bdd9d d04a287c"),
        ("6bc1bee2 2e409f96 e93d7e11 7393172a ae2d8a57 1e03ac9c 9eb76fac 45af8e51 30c81c46 a35ce411", "dfa66747 de9ae630 30ca3261 1497c827"),
        ("6bc1bee2 2e409f96 e93d7e11 7393172a ae2d8a57 1e03ac9c 9eb76fac 45af8e51 30c81c46 a35ce411 e5fbc119 1a0a52ef f69f2445 df4f9b17 ad2b417b e66c3710",
         "51f0bebf 7e3b9d92 fc497417 79363cfe"),
    ])
    func aesCMACMatchesAppendixD1(message: String, tag: String) {
        let key = block("2b7e1516 28aed2a6 abf71588 09cf4f3c")
        let input = bytes(message)
        #expect(input.withUnsafeBytes { AESCMAC.mac(key: key, $0) } == block(tag))
        // The same tag when the message arrives one byte at a time.
        var streaming = AESCMAC(key: key)
        for byte in input { streaming.update(byte: byte) }
        #expect(streaming.finalize() == block(tag))
    }

    let u = "20b003d2 f297be2c 5e2c83a7 e9f9a5b9 eff49111 acf4fddb cc030148 0e359de6"
    let v = "55188b3d 32f6bb9a 900afcfb eed4e72a 59cb9ac2 f19d7cfb 6b4fdd49 f47fc5fd"
    let n1 = "d5cb8454 d177733e ffffb2ec 712baeab"
    let n2 = "a6e8e7cc 25a75f6e 216583f7 ff3dc4cf"
    let a1 = LEAddress(BluetoothAddress(0x5612_3737_BFCE), type: .public)
    let a2 = LEAddress(BluetoothAddress(0xA713_702D_CFC1), type: .public)

    @Test func f4MatchesAppendixD2() {
        #expect(SMPCrypto.f4(u: coordinate(u), v: coordinate(v), x: block(n1), z: 0) == block("f2c916f1 07a9bd1c f1eda1be a974872d"))
    }

    @Test func f5MatchesAppendixD3() {
        let dhKey = coordinate("ec0234a3 57c8ad05 341010a6 0a397d9b 99796b13 b4f866f1 868d34f3 73bfa698")
        let (macKey, ltk) = SMPCrypto.f5(w: dhKey, n1: block(n1), n2: block(n2), a1: a1, a2: a2)
        #expect(macKey == block("2965f176 a1084a02 fd3f6a20 ce636e20"))
        #expect(ltk == block("69867911 69d7cd23 980522b5 94750a38"))
    }

    @Test func f6MatchesAppendixD4() {
        let check = SMPCrypto.f6(w: block("2965f176 a1084a02 fd3f6a20 ce636e20"), n1: block(n1), n2: block(n2),
                                 r: block("12a3343b b453bb54 08da42d2 0c2d0fc8"), ioCapability: 0x010102, a1: a1, a2: a2)
        #expect(check == block("e3c47398 9cd0e8c5 d26c0b09 da958f61"))
    }

    @Test func g2MatchesAppendixD5() {
        #expect(SMPCrypto.g2(u: coordinate(u), v: coordinate(v), x: block(n1), y: block(n2)) == 0x2f9e_d5ba)
    }

    @Test func aChangedInputChangesEveryFunction() {
        // Guards against a function that ignores an argument: flipping one bit of each input moves the output.
        let base = SMPCrypto.f4(u: coordinate(u), v: coordinate(v), x: block(n1), z: 0)
        #expect(SMPCrypto.f4(u: coordinate(u), v: coordinate(v), x: block(n1), z: 0x81) != base)
        var other = coordinate(v)
        other.bytes[31] ^= 1
        #expect(SMPCrypto.f4(u: coordinate(u), v: other, x: block(n1), z: 0) != base)
    }
}
