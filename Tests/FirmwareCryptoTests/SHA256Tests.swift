import FirmwareCrypto
import Testing

@Suite("In-house SHA-256 (FIPS 180-4)")
struct SHA256Tests {
    @Test("FIPS 180-4 examples: \"abc\", the 448-bit message, the empty message, one million 'a'")
    func fipsExamples() {
        #expect(hexString(sha256(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(hexString(sha256(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(hexString(sha256([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        var hasher = SHA256()
        for _ in 0..<1_000_000 { hasher.update(byte: 0x61) }
        #expect(hexString(hasher.finalize()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Lengths either side of the padding boundaries (55/56: the length field no longer fits the
    /// block; 63/64/65: a full block), digests from OpenSSL (Python's hashlib) over bytes i % 251.
    @Test("Padding boundaries agree with OpenSSL", arguments: [
        (55, "463eb28e72f82e0a96c0a4cc53690c571281131f672aa229e0d45ae59b598b59"),
        (56, "da2ae4d6b36748f2a318f23e7ab1dfdf45acdc9d049bd80e59de82a60895f562"),
        (63, "29af2686fd53374a36b0846694cc342177e428d1647515f078784d69cdb9e488"),
        (64, "fdeab9acf3710362bd2658cdc9a29e8f9c757fcf9811603a8c447cd1d9151108"),
        (65, "4bfd2c8b6f1eec7a2afeb48b934ee4b2694182027e6d0fc075074f2fabb31781"),
        (119, "da18797ed7c3a777f0847f429724a2d8cd5138e6ed2895c3fa1a6d39d18f7ec6"),
        (120, "f52b23db1fbb6ded89ef42a23ce0c8922c45f25c50b568a93bf1c075420bbb7c"),
        (128, "471fb943aa23c511f6f72f8d1652d9c880cfa392ad80503120547703e56a2be5"),
    ])
    func paddingBoundaries(length: Int, expected: String) {
        #expect(hexString(sha256((0..<length).map { UInt8($0 % 251) })) == expected)
    }

    @Test("Feeding in pieces of every size gives the one-shot digest")
    func streamingMatchesOneShot() {
        let message = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        let whole = sha256(message)
        for piece in 1...70 {
            var hasher = SHA256()
            var start = 0
            while start < message.count {
                let end = min(start + piece, message.count)
                message[start..<end].withUnsafeBytes { hasher.update($0) }
                start = end
            }
            #expect(hasher.finalize() == whole, "piece size \(piece)")
        }
    }

    @Test("Digest equality sees a difference in any byte")
    func equalityChecksEveryByte() {
        let digest = sha256(Array("abc".utf8))
        for index in 0..<Digest256.byteCount {
            var changed = digest
            changed.bytes[index] ^= 0x01
            #expect(changed != digest)
        }
    }
}
