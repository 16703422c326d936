import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A 128-bit hash of a record's bytes that is the same in every run and on every machine
/// (Swift's `Hasher` is seeded per process), for the sync identifier of records that carry none:
/// importing the same export twice finds every record already stored, and the band's workouts
/// get the same id from the same session (`BandReader`'s workout writer).
///
/// Two independent 64-bit multiply-xorshift lanes over 8-byte words. Not cryptographic: an export
/// is the user's own data, and a collision needs about 2^64 records.
public struct StableHash: Sendable {
    private var a: UInt64 = 0x6A09_E667_F3BC_C908
    private var b: UInt64 = 0xBB67_AE85_84CA_A73B
    private var length: UInt64 = 0

    public init() {}

    public mutating func combine(_ text: UnsafePointer<CChar>) {
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

    public mutating func combine(_ value: UInt64) { mix(value) }

    /// A Swift string, hashed exactly as the same bytes passed as a C string.
    public mutating func combine(_ text: String) { text.withCString { combine($0) } }

    private mutating func mix(_ word: UInt64) {
        a = (a ^ word) &* 0x9E37_79B9_7F4A_7C15
        a ^= a >> 29
        b = (b ^ (word &+ 0x632B_E59B_D9B4_E019)) &* 0xBF58_476D_1CE4_E5B9
        b ^= b >> 31
    }

    /// The 128 bits, finalised.
    public func finish() -> (UInt64, UInt64) {
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
    public func syncIdentifier() -> String {
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

extension UUID {
    /// A version-8 UUID (RFC 9562 §5.8) carrying a stable hash: the same element gets the same id.
    public init(stableHash: StableHash) {
        let (high, low) = stableHash.finish()
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<8 {
            bytes[index] = UInt8(truncatingIfNeeded: high >> (8 * (7 - index)))
            bytes[8 + index] = UInt8(truncatingIfNeeded: low >> (8 * (7 - index)))
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        self.init(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                         bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}
