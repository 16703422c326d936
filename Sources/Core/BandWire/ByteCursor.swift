/// A bounds-checked, non-owning reader over a caller-owned byte buffer.
///
/// The hot path of every decoder in BandKit: it never copies and never allocates.
/// Every multi-byte read names its byte order (`readUInt16LE`, `readUInt32BE`), because
/// Bluetooth mixes both: GATT, ATT, HCI and L2CAP are little-endian, btsnoop is big-endian.
///
/// A cursor is only valid inside the `withUnsafeBytes` (or similar) scope that produced
/// its buffer; values decoded from it own their bytes (or copy them into fixed inline
/// storage) so they may outlive it.
///
/// Reads that run past the end throw ``ParseError/Kind/truncated`` at the offset where the
/// field starts and leave the cursor where it was, so a streaming caller can retry with
/// more data.
public struct ByteCursor {
    public let bytes: UnsafeRawBufferPointer
    /// Index of the next byte to read, relative to `bytes`.
    @usableFromInline var position_: Int
    @inlinable public var position: Int { position_ }
    /// Added to `position` when reporting offsets, so nested cursors report file or PDU offsets.
    public let baseOffset: Int

    @inlinable
    public init(_ bytes: UnsafeRawBufferPointer, baseOffset: Int = 0) {
        self.bytes = bytes
        self.position_ = 0
        self.baseOffset = baseOffset
    }

    /// Absolute offset of the next byte, for error reports.
    @inlinable public var offset: Int { baseOffset + position }
    @inlinable public var remaining: Int { bytes.count - position }
    @inlinable public var isAtEnd: Bool { position >= bytes.count }

    /// An error of `kind` at the current position.
    @inlinable
    public func error(_ kind: ParseError.Kind, _ field: StaticString = "") -> ParseError {
        ParseError(kind, at: offset, field: field)
    }

    @inlinable @inline(__always)
    mutating func require(_ count: Int, _ field: StaticString) throws(ParseError) {
        guard count >= 0, count <= bytes.count - position_ else { throw truncated(field) }
    }

    /// The error of a read past the end; kept out of line so the reads inline to a compare and a load.
    @usableFromInline @inline(never)
    func truncated(_ field: StaticString) -> ParseError {
        ParseError(.truncated, at: offset, field: field)
    }

    /// A little-endian load at `position` (bounds already checked).
    @inlinable @inline(__always)
    func load<T: FixedWidthInteger>(littleEndian type: T.Type) -> T {
        T(littleEndian: bytes.loadUnaligned(fromByteOffset: position_, as: T.self))
    }

    /// A little-endian load `offset` bytes past `position`, which the caller has checked are there.
    @inlinable @inline(__always)
    public func load<T: FixedWidthInteger>(littleEndian type: T.Type, at offset: Int) -> T {
        T(littleEndian: bytes.loadUnaligned(fromByteOffset: position_ + offset, as: T.self))
    }

    /// A big-endian load at `position` (bounds already checked).
    @inlinable @inline(__always)
    func load<T: FixedWidthInteger>(bigEndian type: T.Type) -> T {
        T(bigEndian: bytes.loadUnaligned(fromByteOffset: position_, as: T.self))
    }

    // MARK: Integers

    @inlinable @inline(__always)
    public mutating func readUInt8(_ field: StaticString = "") throws(ParseError) -> UInt8 {
        guard position_ < bytes.count else { throw truncated(field) }
        defer { position_ += 1 }
        return bytes[position_]
    }

    @inlinable
    public func peekUInt8(_ field: StaticString = "") throws(ParseError) -> UInt8 {
        guard position_ < bytes.count else { throw truncated(field) }
        return bytes[position_]
    }

    @inlinable @inline(__always)
    public mutating func readUInt16LE(_ field: StaticString = "") throws(ParseError) -> UInt16 {
        try require(2, field)
        defer { position_ += 2 }
        return load(littleEndian: UInt16.self)
    }

    @inlinable @inline(__always)
    public mutating func readUInt16BE(_ field: StaticString = "") throws(ParseError) -> UInt16 {
        try require(2, field)
        defer { position_ += 2 }
        return load(bigEndian: UInt16.self)
    }

    @inlinable
    public mutating func readUInt24LE(_ field: StaticString = "") throws(ParseError) -> UInt32 {
        try require(3, field)
        defer { position_ += 3 }
        return UInt32(bytes[position_]) | UInt32(bytes[position_ + 1]) << 8 | UInt32(bytes[position_ + 2]) << 16
    }

    @inlinable @inline(__always)
    public mutating func readUInt32LE(_ field: StaticString = "") throws(ParseError) -> UInt32 {
        try require(4, field)
        defer { position_ += 4 }
        return load(littleEndian: UInt32.self)
    }

    @inlinable @inline(__always)
    public mutating func readUInt32BE(_ field: StaticString = "") throws(ParseError) -> UInt32 {
        try require(4, field)
        defer { position_ += 4 }
        return load(bigEndian: UInt32.self)
    }

    @inlinable @inline(__always)
    public mutating func readUInt64LE(_ field: StaticString = "") throws(ParseError) -> UInt64 {
        try require(8, field)
        defer { position_ += 8 }
        return load(littleEndian: UInt64.self)
    }

    @inlinable @inline(__always)
    public mutating func readUInt64BE(_ field: StaticString = "") throws(ParseError) -> UInt64 {
        try require(8, field)
        defer { position_ += 8 }
        return load(bigEndian: UInt64.self)
    }

    @inlinable
    public mutating func readInt16LE(_ field: StaticString = "") throws(ParseError) -> Int16 {
        Int16(bitPattern: try readUInt16LE(field))
    }

    @inlinable
    public mutating func readInt32LE(_ field: StaticString = "") throws(ParseError) -> Int32 {
        Int32(bitPattern: try readUInt32LE(field))
    }

    @inlinable
    public mutating func readInt64BE(_ field: StaticString = "") throws(ParseError) -> Int64 {
        Int64(bitPattern: try readUInt64BE(field))
    }

    // MARK: Byte runs

    /// The next `count` bytes as a view into the same buffer (no copy).
    @inlinable @inline(__always)
    public mutating func readBytes(_ count: Int, _ field: StaticString = "") throws(ParseError) -> UnsafeRawBufferPointer {
        try require(count, field)
        defer { position_ += count }
        return UnsafeRawBufferPointer(rebasing: bytes[position..<position + count])
    }

    /// Everything that is left (possibly empty), as a view.
    @inlinable
    public mutating func readRemaining() -> UnsafeRawBufferPointer {
        defer { position_ = bytes.count }
        return UnsafeRawBufferPointer(rebasing: bytes[position...])
    }

    /// A cursor over the next `count` bytes, reporting offsets in this cursor's frame; this cursor moves past them.
    @inlinable
    public mutating func readCursor(_ count: Int, _ field: StaticString = "") throws(ParseError) -> ByteCursor {
        let start = offset
        let view = try readBytes(count, field)
        return ByteCursor(view, baseOffset: start)
    }

    @inlinable @inline(__always)
    public mutating func skip(_ count: Int, _ field: StaticString = "") throws(ParseError) {
        try require(count, field)
        position_ += count
    }

    /// Throws ``ParseError/Kind/trailingBytes`` unless every byte has been read.
    @inlinable
    public func expectEnd(_ field: StaticString = "") throws(ParseError) {
        guard isAtEnd else { throw trailing(field) }
    }

    @usableFromInline @inline(never)
    func trailing(_ field: StaticString) -> ParseError {
        ParseError(.trailingBytes, at: offset, field: field)
    }

    /// Runs `body`; if it throws, the cursor is left exactly where it was (for "need more data" framers).
    @inlinable
    public mutating func transaction<T>(_ body: (inout ByteCursor) throws(ParseError) -> T) throws(ParseError) -> T {
        var copy = self
        let value = try body(&copy)
        self = copy
        return value
    }
}

/// Types decoded from the wire.
public protocol WireDecodable {
    /// Decodes one value, consuming exactly its bytes.
    init(parsing input: inout ByteCursor) throws(ParseError)
}

/// Types encoded to the wire, mirroring their decoder.
public protocol WireEncodable {
    func encode(into output: inout ByteWriter)
}

public typealias WireCodable = WireDecodable & WireEncodable

extension WireDecodable {
    /// Decodes a whole buffer that must hold exactly one value (trailing bytes are an error).
    @inlinable
    public init(parsingAll bytes: UnsafeRawBufferPointer, baseOffset: Int = 0) throws(ParseError) {
        var cursor = ByteCursor(bytes, baseOffset: baseOffset)
        self = try Self(parsing: &cursor)
        try cursor.expectEnd()
    }

    /// Convenience for tests and cold paths: decode an array that holds exactly one value.
    public init(parsingAll bytes: [UInt8]) throws(ParseError) {
        let result: Result<Self, ParseError> = bytes.withUnsafeBytes { raw in
            do throws(ParseError) { return .success(try Self(parsingAll: raw)) } catch { return .failure(error) }
        }
        self = try result.get()
    }
}
