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
        var pointer = UnsafeRawPointer(text)
        var word: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = pointer.load(as: UInt8.self)
            if byte == 0 { break }
            word |= UInt64(byte) << shift
            shift += 8
            if shift == 64 {
                mix(word)
                word = 0
                shift = 0
            }
            pointer += 1
            length &+= 1
        }
        // The terminator separates fields: ("ab", "c") and ("a", "bc") differ.
        mix(word ^ (0xFF << shift))
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

    /// `ah-` and 32 hex digits: the sync identifier of a record without one.
    func syncIdentifier() -> String {
        let (high, low) = finish()
        return "ah-" + hex(high) + hex(low)
    }

    private func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
