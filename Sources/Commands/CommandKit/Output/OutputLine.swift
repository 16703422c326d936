/// Appends into memory reserved in a ``BufferedOutput`` for one line: the formatting core of
/// every per-packet printer (`bandsim decode`, `band stream`).
///
/// The line's maximum length is promised up front (``BufferedOutput/writeLine(maximumLength:_:)``),
/// so an append is a bounds comparison and a store: no flush decision, no shared fill level
/// reloaded and stored back per byte. Overrunning the promise is a programming error and stops
/// the process before a byte is written past the reservation.
///
/// Numbers are formatted without `String`: decimal two digits at a time from a pair table
/// (eight-digit halves for large values such as Unix microseconds), hex from a byte table.
public struct OutputLine {
    @usableFromInline let start: UnsafeMutablePointer<UInt8>
    @usableFromInline var next: UnsafeMutablePointer<UInt8>
    @usableFromInline let end: UnsafeMutablePointer<UInt8>

    @inlinable
    init(start: UnsafeMutablePointer<UInt8>, capacity: Int) {
        self.start = start
        next = start
        end = start + capacity
    }

    /// Bytes appended so far.
    @inlinable public var count: Int { next - start }

    @inlinable @inline(__always)
    mutating func claim(_ n: Int) -> UnsafeMutablePointer<UInt8> {
        precondition(end - next >= n, "line longer than the length reserved for it")
        let at = next
        next += n
        return at
    }

    @inlinable @inline(__always)
    public mutating func append(_ byte: UInt8) {
        claim(1).pointee = byte
    }

    @inlinable @inline(__always)
    public mutating func append(_ text: StaticString) {
        guard text.hasPointerRepresentation else {  // a single-scalar StaticString has no utf8Start
            return text.withUTF8Buffer { append(UnsafeRawBufferPointer($0)) }
        }
        // Inlined, a literal's copy has a constant size and compiles to a few moves.
        claim(text.utf8CodeUnitCount).update(from: text.utf8Start, count: text.utf8CodeUnitCount)
    }

    @inlinable @inline(__always)
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress else { return }
        UnsafeMutableRawPointer(claim(bytes.count)).copyMemory(from: source, byteCount: bytes.count)
    }

    /// A String's UTF-8 as it is (no escaping: JSON strings go through ``JSONLine``).
    @_disfavoredOverload
    public mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    // MARK: Decimal

    @inlinable @inline(__always)
    public mutating func append(decimal value: Int) { append(decimal: Int64(value)) }

    @inlinable @inline(__always)
    public mutating func append(decimal value: Int64) {
        if value < 0 { append(UInt8(ascii: "-")) }
        append(decimal: value.magnitude)
    }

    /// Values below 10 000 (flags, opcodes, handles, heart rates, RR-intervals: most numbers a
    /// packet holds) take a compare or two and up to two table stores, inlined.
    @inlinable @inline(__always)
    public mutating func append(decimal value: UInt64) {
        if value < 100 {
            if value < 10 {
                append(UInt8(truncatingIfNeeded: value) &+ 48)
            } else {
                appendPair(Int(value), at: claim(2))
            }
        } else if value < 10_000 {
            let high = Int(value / 100), low = Int(value % 100)
            if high < 10 {
                let out = claim(3)
                out.pointee = UInt8(truncatingIfNeeded: high) &+ 48
                appendPair(low, at: out + 1)
            } else {
                let out = claim(4)
                appendPair(high, at: out)
                appendPair(low, at: out + 2)
            }
        } else {
            appendLargeDecimal(value)
        }
    }

    @usableFromInline
    mutating func appendLargeDecimal(_ value: UInt64) {
        guard value >= 100_000_000 else { return appendUpTo8Digits(UInt32(truncatingIfNeeded: value)) }
        let high = value / 100_000_000
        let low = UInt32(truncatingIfNeeded: value % 100_000_000)
        if high >= 100_000_000 {
            appendUpTo8Digits(UInt32(truncatingIfNeeded: high / 100_000_000))
            append8Digits(UInt32(truncatingIfNeeded: high % 100_000_000))
        } else {
            appendUpTo8Digits(UInt32(truncatingIfNeeded: high))
        }
        append8Digits(low)
    }

    /// 1 to 8 digits, no leading zeros.
    @usableFromInline
    mutating func appendUpTo8Digits(_ value: UInt32) {
        let digits = value < 10_000
            ? (value < 100 ? (value < 10 ? 1 : 2) : (value < 1_000 ? 3 : 4))
            : (value < 1_000_000 ? (value < 100_000 ? 5 : 6) : (value < 10_000_000 ? 7 : 8))
        let out = claim(digits)
        var rest = value
        var index = digits
        while index >= 2 {
            index -= 2
            appendPair(Int(rest % 100), at: out + index)
            rest /= 100
        }
        if index == 1 { out.pointee = UInt8(truncatingIfNeeded: rest) &+ 48 }
    }

    /// Exactly 8 digits, zero-padded (the low half of a large value).
    @usableFromInline
    mutating func append8Digits(_ value: UInt32) {
        let out = claim(8)
        var rest = value
        for index in stride(from: 6, through: 0, by: -2) {
            appendPair(Int(rest % 100), at: out + index)
            rest /= 100
        }
    }

    @inlinable @inline(__always)
    func appendPair(_ pair: Int, at out: UnsafeMutablePointer<UInt8>) {
        UnsafeMutableRawPointer(out).copyMemory(from: OutputTables.digitPairs.utf8Start + 2 * pair, byteCount: 2)
    }

    // MARK: Hex

    /// Lowercase hex of `bytes`, two characters per byte from a 256-entry table.
    @inlinable
    public mutating func append(hex bytes: UnsafeRawBufferPointer) {
        let out = UnsafeMutableRawPointer(claim(2 * bytes.count))
        let table = UnsafeRawPointer(OutputTables.hexPairs.utf8Start)
        for i in 0..<bytes.count {
            (out + 2 * i).copyMemory(from: table + 2 * Int(bytes[i]), byteCount: 2)
        }
    }

    /// `digits` lowercase hex digits of `value` (a 16-bit UUID as "2a37"), a byte at a time.
    @inlinable
    public mutating func append(hex value: UInt64, digits: Int) {
        let out = UnsafeMutableRawPointer(claim(digits))
        let table = UnsafeRawPointer(OutputTables.hexPairs.utf8Start)
        var rest = value
        var index = digits
        while index >= 2 {
            index -= 2
            (out + index).copyMemory(from: table + 2 * Int(rest & 0xFF), byteCount: 2)
            rest >>= 8
        }
        if index == 1 { out.storeBytes(of: (table + 2 * Int(rest & 0xF) + 1).load(as: UInt8.self), as: UInt8.self) }
    }
}

/// Formatting tables as static bytes in the binary (no array to retain, no lazy global to check).
@usableFromInline
enum OutputTables {
    /// "00" "01" … "99".
    @usableFromInline static let digitPairs: StaticString = """
        00010203040506070809101112131415161718192021222324252627282930313233343536373839\
        40414243444546474849505152535455565758596061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """

    /// "00" "01" … "ff".
    @usableFromInline static let hexPairs: StaticString = """
        000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\
        202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f\
        404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f\
        606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f\
        808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f\
        a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf\
        c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf\
        e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff
        """
}
