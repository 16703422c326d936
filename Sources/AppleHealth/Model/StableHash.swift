#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A 128-bit hash of a record's bytes that is the same in every run and on every machine
/// (Swift's `Hasher` is seeded per process), for the sync identifier of records that carry none:
/// importing the same export twice finds every record already stored.
///
/// Two independent 64-bit multiply-xorshift lanes over 8-byte words. Not cryptographic: an export
/// is the user's own data, and a collision needs about 2^64 records.
struct StableHash {
    private var a: UInt64 = 0x6A09_E667_F3BC_C908
    private var b: UInt64 = 0xBB67_AE85_84CA_A73B
    private var length: UInt64 = 0

    mutating func combine(_ text: UnsafePointer<CChar>) {
        let count = strlen(text)
        let raw = UnsafeRawPointer(text)
        var offset = 0
        // Eight bytes at a time, little-endian, so every machine computes the same words.
        while offset + 8 <= count {
            mix(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
            offset += 8
        }
        var word: UInt64 = 0
        var shift: UInt64 = 0
        while offset < count {
            word |= UInt64(raw.load(fromByteOffset: offset, as: UInt8.self)) << shift
            shift += 8
            offset += 1
        }
        // The terminator separates fields: ("ab", "c") and ("a", "bc") differ.
        mix(word ^ (0xFF << shift))
        length &+= UInt64(count)
    }

    mutating func combine(_ value: UInt64) { mix(value) }

    private mutating func mix(_ word: UInt64) {
        a = (a ^ word) &* 0x9E37_79B9_7F4A_7C15
        a ^= a >> 29
        b = (b ^ (word &+ 0x632B_E59B_D9B4_E019)) &* 0xBF58_476D_1CE4_E5B9
        b ^= b >> 31
    }

    /// The 128 bits, finalised.
    func finish() -> (UInt64, UInt64) {
        func fmix(_ value: UInt64) -> UInt64 {
            var h = value
            h ^= h >> 33
            h = h &* 0xFF51_AFD7_ED55_8CCD
            h ^= h >> 33
            h = h &* 0xC4CE_B9FE_1A85_EC53
            h ^= h >> 33
            return h
        }
        let x = fmix(a ^ length), y = fmix(b ^ (length &* 0x9E37_79B9_7F4A_7C15))
        return (fmix(x ^ y >> 1), fmix(y ^ x << 1))
    }

    /// `ah-` and 32 hex digits: the sync identifier of a record without one. Written into the
    /// string's own storage in one allocation (one per record on the import's hot path).
    func syncIdentifier() -> String {
        let (high, low) = finish()
        return String(unsafeUninitializedCapacity: 35) { buffer in
            buffer[0] = UInt8(ascii: "a")
            buffer[1] = UInt8(ascii: "h")
            buffer[2] = UInt8(ascii: "-")
            for index in 0..<16 {
                buffer[3 + index] = StableHash.hexDigits[Int(high >> (60 - 4 * UInt64(index)) & 0xF)]
                buffer[19 + index] = StableHash.hexDigits[Int(low >> (60 - 4 * UInt64(index)) & 0xF)]
            }
            return 35
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
