/// A bounds-checked writer into a caller-owned fixed buffer, the mirror of ``ByteCursor``.
///
/// Encoders never allocate and never throw mid-way: a write that does not fit sets the
/// sticky ``overflowed`` flag and is dropped (the way Zephyr's `net_buf` and NimBLE's
/// `os_mbuf` report "no room" once, at the end). Callers check ``finish()`` before sending,
/// which turns an overflow into an ``EncodeError`` that names how much room was needed.
public struct ByteWriter {
    public let buffer: UnsafeMutableRawBufferPointer
    @usableFromInline var count_: Int = 0
    @inlinable public var count: Int { count_ }
    @usableFromInline var attempted_: Int = 0
    /// Bytes the encoder tried to write in total, including any that did not fit.
    @inlinable public var attempted: Int { attempted_ }

    @inlinable
    public init(_ buffer: UnsafeMutableRawBufferPointer) {
        self.buffer = buffer
    }

    @inlinable public var capacity: Int { buffer.count }
    @inlinable public var overflowed: Bool { attempted > count }
    @inlinable public var remainingCapacity: Int { buffer.count - count }

    /// The bytes written so far.
    @inlinable public var written: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[0..<count])
    }

    /// The number of bytes written, or an error if anything did not fit.
    @inlinable
    public func finish() throws(EncodeError) -> Int {
        guard !overflowed else { throw EncodeError(needed: attempted, capacity: capacity) }
        return count
    }

    /// Accounts for `n` more bytes; false (and nothing written, ever again) once they do not fit.
    @inlinable
    mutating func reserve(_ n: Int) -> Bool {
        let fits = !overflowed && n <= buffer.count - count_
        attempted_ += n
        return fits
    }

    @inlinable
    public mutating func writeUInt8(_ value: UInt8) {
        guard reserve(1) else { return }
        buffer[count] = value
        count_ += 1
    }

    @inlinable
    public mutating func writeUInt16LE(_ value: UInt16) {
        guard reserve(2) else { return }
        buffer[count] = UInt8(truncatingIfNeeded: value)
        buffer[count + 1] = UInt8(truncatingIfNeeded: value >> 8)
        count_ += 2
    }

    @inlinable
    public mutating func writeUInt16BE(_ value: UInt16) {
        guard reserve(2) else { return }
        buffer[count] = UInt8(truncatingIfNeeded: value >> 8)
        buffer[count + 1] = UInt8(truncatingIfNeeded: value)
        count_ += 2
    }

    @inlinable
    public mutating func writeUInt24LE(_ value: UInt32) {
        guard reserve(3) else { return }
        for i in 0..<3 { buffer[count + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(i))) }
        count_ += 3
    }

    @inlinable
    public mutating func writeUInt32LE(_ value: UInt32) {
        guard reserve(4) else { return }
        for i in 0..<4 { buffer[count + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(i))) }
        count_ += 4
    }

    @inlinable
    public mutating func writeUInt32BE(_ value: UInt32) {
        guard reserve(4) else { return }
        for i in 0..<4 { buffer[count + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(3 - i))) }
        count_ += 4
    }

    @inlinable
    public mutating func writeUInt64LE(_ value: UInt64) {
        guard reserve(8) else { return }
        for i in 0..<8 { buffer[count + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(i))) }
        count_ += 8
    }

    @inlinable
    public mutating func writeUInt64BE(_ value: UInt64) {
        guard reserve(8) else { return }
        for i in 0..<8 { buffer[count + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(7 - i))) }
        count_ += 8
    }

    @inlinable public mutating func writeInt16LE(_ value: Int16) { writeUInt16LE(UInt16(bitPattern: value)) }
    @inlinable public mutating func writeInt32LE(_ value: Int32) { writeUInt32LE(UInt32(bitPattern: value)) }
    @inlinable public mutating func writeInt64BE(_ value: Int64) { writeUInt64BE(UInt64(bitPattern: value)) }

    @inlinable
    public mutating func writeBytes(_ bytes: UnsafeRawBufferPointer) {
        guard reserve(bytes.count) else { return }
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        (buffer.baseAddress! + count).copyMemory(from: base, byteCount: bytes.count)
        count_ += bytes.count
    }

    /// Writes `text`'s UTF-8 bytes, all or nothing as every write.
    ///
    /// Copied from the string's contiguous storage: `writeBytes(text.utf8)` goes through the
    /// generic collection path, whose `count` (and any byte-by-byte walk) drags String's index
    /// machinery for foreign strings — UTF-16 breadcrumbs — into an Embedded image: 6 KB of the
    /// band's flash. A String is always native, contiguous UTF-8 on Linux and in Embedded Swift;
    /// only strings bridged from Objective-C are not, and neither platform has Objective-C.
    public mutating func writeUTF8(_ text: String) {
        let copied: Void? = text.utf8.withContiguousStorageIfAvailable { writeBytes(UnsafeRawBufferPointer($0)) }
        precondition(copied != nil, "a String without contiguous UTF-8 (bridged from Objective-C)")
    }

    /// Writes a literal's UTF-8 bytes, all or nothing as every write.
    public mutating func writeUTF8(_ text: StaticString) {
        text.withUTF8Buffer { writeBytes(UnsafeRawBufferPointer($0)) }
    }

    @inlinable
    public mutating func writeBytes<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        guard reserve(bytes.count) else { return }
        for byte in bytes {
            buffer[count] = byte
            count_ += 1
        }
    }

    /// Overwrites an already written little-endian UInt16 (for length fields known only at the end).
    @inlinable
    public mutating func patchUInt16LE(_ value: UInt16, at index: Int) {
        precondition(index + 2 <= count, "patch outside written bytes")
        buffer[index] = UInt8(truncatingIfNeeded: value)
        buffer[index + 1] = UInt8(truncatingIfNeeded: value >> 8)
    }
}

/// An encoder needed more room than its buffer had.
public struct EncodeError: Error, Equatable, Sendable, CustomStringConvertible {
    public var needed: Int
    public var capacity: Int
    public init(needed: Int, capacity: Int) {
        self.needed = needed
        self.capacity = capacity
    }
    public var description: String { "encoding needs \(needed) bytes but the buffer holds \(capacity)" }
}

extension WireEncodable {
    /// Cold-path convenience (tests, tools): encode into a fresh array.
    public func encodedBytes(capacity: Int = 1024) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: capacity)
        let n = out.withUnsafeMutableBytes { raw -> Int in
            var writer = ByteWriter(raw)
            encode(into: &writer)
            precondition(!writer.overflowed, "encodedBytes(capacity:) too small: needs \(writer.attempted)")
            return writer.count
        }
        out.removeSubrange(n...)
        return out
    }
}
