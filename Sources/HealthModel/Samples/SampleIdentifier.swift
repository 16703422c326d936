import Foundation

extension UUID {
    /// A UUID version 7 (RFC 9562 §5.7): 48-bit Unix milliseconds, then random bits.
    ///
    /// Samples default to time-ordered identifiers so that the store's unique index on ids
    /// grows at its right edge instead of taking random page splits on bulk imports.
    public static func timeOrdered(at date: Date = Date()) -> UUID {
        var generator = SystemRandomNumberGenerator()
        let milliseconds = UInt64(max(0, date.timeIntervalSince1970 * 1000))
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - index))) }
        let random = generator.next() as UInt64
        let random2 = generator.next() as UInt64
        for index in 6..<16 {
            let source = index < 14 ? random >> (8 * (index - 6)) : random2 >> (8 * (index - 14))
            bytes[index] = UInt8(truncatingIfNeeded: source)
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x70  // version 7
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 9562 variant
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}
