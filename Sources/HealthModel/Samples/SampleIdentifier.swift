#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

extension UUID {
    /// A UUID version 7 (RFC 9562 §5.7): 48-bit Unix milliseconds, then random bits.
    ///
    /// Samples default to time-ordered identifiers so that the store's unique index on ids
    /// grows at its right edge instead of taking random page splits on bulk imports.
    /// The random bits come from `arc4random_buf` (a CSPRNG, as RFC 9562 §6.9 asks, that does
    /// not make a system call per identifier).
    public static func timeOrdered(at date: Date = Date()) -> UUID {
        let milliseconds = UInt64(max(0, date.timeIntervalSince1970 * 1000))
        var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &value) { bytes in
            arc4random_buf(bytes.baseAddress! + 6, 10)
            for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - index))) }
            bytes[6] = (bytes[6] & 0x0F) | 0x70  // version 7
            bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 9562 variant
        }
        return UUID(uuid: value)
    }
}
