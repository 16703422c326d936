/// Where a ``JSONWriter`` puts its bytes: a line reserved in a command's output buffer
/// (CommandKit's `OutputLine`), or a growable ``JSONBuffer``.
///
/// A sink needs only the two byte appends; the rest have portable defaults that a sink on a hot
/// path replaces with its own (one bounds check per key, table-driven digits).
public protocol JSONSink {
    mutating func append(_ byte: UInt8)
    mutating func append(_ bytes: UnsafeRawBufferPointer)
    mutating func append(_ text: StaticString)
    /// Decimal digits, no leading zeros.
    mutating func append(decimal value: UInt64)
    /// Lowercase hex, two digits per byte.
    mutating func append(hex bytes: UnsafeRawBufferPointer)
    /// The `digits` low hex digits of `value`, lowercase, zero-padded.
    mutating func append(hex value: UInt64, digits: Int)
    /// `,` when `comma`, then `"name":` (a trusted ASCII name, written as it is).
    mutating func appendKey(_ name: StaticString, comma: Bool)
}

extension JSONSink {
    @inlinable
    public mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { append(UnsafeRawBufferPointer($0)) }
    }

    @inlinable
    public mutating func append(decimal value: UInt64) {
        // 20 digits at most, formatted backwards into a stack buffer.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
            var rest = value
            var index = buffer.count
            repeat {
                index -= 1
                buffer[index] = UInt8(truncatingIfNeeded: rest % 10) &+ 48
                rest /= 10
            } while rest != 0
            append(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[index...]))
        }
    }

    /// Decimal digits, `-` first when negative.
    @inlinable @inline(__always)
    public mutating func append(decimal value: Int64) {
        if value < 0 { append(UInt8(ascii: "-")) }
        append(decimal: value.magnitude)
    }

    /// `numerator / denominator` exactly in decimal (denominator > 0, a product of 2s and 5s
    /// such as 10, 100, 256 or 1024, so the expansion ends), without trailing zeros: 896/256 →
    /// "3.5", 512/256 → "2". At most 18 decimals.
    @inlinable
    public mutating func append(numerator: Int64, denominator: Int64) {
        precondition(denominator > 0)
        if numerator < 0 { append(UInt8(ascii: "-")) }
        let magnitude = numerator.magnitude
        let d = UInt64(denominator)
        append(decimal: magnitude / d)
        var remainder = magnitude % d
        guard remainder != 0 else { return }
        append(UInt8(ascii: "."))
        var digits = 0
        while remainder != 0 && digits < 18 {
            remainder *= 10
            append(UInt8(truncatingIfNeeded: remainder / d) &+ 48)
            remainder %= d
            digits += 1
        }
    }

    @inlinable
    public mutating func append(hex bytes: UnsafeRawBufferPointer) {
        for byte in bytes {
            append(JSONDigits.hex(byte >> 4))
            append(JSONDigits.hex(byte & 0xF))
        }
    }

    @inlinable
    public mutating func append(hex value: UInt64, digits: Int) {
        var shift = 4 * (digits - 1)
        while shift >= 0 {
            append(JSONDigits.hex(UInt8(truncatingIfNeeded: value >> UInt64(shift)) & 0xF))
            shift -= 4
        }
    }

    @inlinable
    public mutating func appendKey(_ name: StaticString, comma: Bool) {
        if comma { append(UInt8(ascii: ",")) }
        append(UInt8(ascii: "\""))
        append(name)
        append(UInt8(ascii: "\""))
        append(UInt8(ascii: ":"))
    }
}

@usableFromInline
enum JSONDigits {
    /// The lowercase hex digit of `nibble` (0–15).
    @inlinable @inline(__always)
    static func hex(_ nibble: UInt8) -> UInt8 { nibble < 10 ? nibble &+ 48 : nibble &+ 87 }
}

/// A growable JSON text: for documents and values assembled in memory (a store's metadata
/// column, a command's result array) rather than streamed line by line.
public struct JSONBuffer: JSONSink {
    public var bytes: [UInt8]

    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    @inlinable
    public mutating func append(_ byte: UInt8) { bytes.append(byte) }

    @inlinable
    public mutating func append(_ bytes: UnsafeRawBufferPointer) { self.bytes.append(contentsOf: bytes) }

    /// The text written so far (always valid UTF-8: the writer copies only whole strings).
    public var text: String { String(decoding: bytes, as: UTF8.self) }
}
