/// A byte string of at most `capacity` bytes stored inline: no heap allocation.
///
/// ATT attribute values are at most 512 bytes (Core 5.4 Vol 3 Part F §3.2.9), so decoded
/// PDUs can own their value without touching the allocator on the packet path.
public struct FixedBytes<let capacity: Int>: Sendable {
    @usableFromInline var storage: InlineArray<capacity, UInt8>
    @usableFromInline var count_: Int
    @inlinable public var count: Int { count_ }

    @inlinable
    public init() {
        storage = InlineArray(repeating: 0)
        count_ = 0
    }

    /// Copies `bytes`; throws `invalidValue` at `offset` when they do not fit.
    @inlinable
    public init(copying bytes: UnsafeRawBufferPointer, offset: Int = 0) throws(ParseError) {
        guard bytes.count <= capacity else { throw ParseError(.invalidValue, at: offset + capacity, field: "value longer than its maximum") }
        self.init()
        for i in 0..<bytes.count { storage[i] = bytes[i] }
        count_ = bytes.count
    }

    /// Copies `bytes`, which must fit (a programming error otherwise).
    public init<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        precondition(bytes.count <= capacity, "FixedBytes<\(capacity)> cannot hold \(bytes.count) bytes")
        self.init()
        for byte in bytes {
            storage[count] = byte
            count_ += 1
        }
    }

    @inlinable public var isEmpty: Bool { count == 0 }

    @inlinable
    public subscript(index: Int) -> UInt8 {
        get {
            precondition(index >= 0 && index < count, "FixedBytes index out of range")
            return storage[index]
        }
        set {
            precondition(index >= 0 && index < count, "FixedBytes index out of range")
            storage[index] = newValue
        }
    }

    @inlinable
    public mutating func append(_ byte: UInt8) -> Bool {
        guard count < capacity else { return false }
        storage[count] = byte
        count_ += 1
        return true
    }

    @inlinable
    public mutating func removeAll() { count_ = 0 }

    /// Calls `body` with a view of the bytes.
    @inlinable
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        let copy = storage
        return try copy.span.withUnsafeBufferPointer { (buffer) throws(E) -> R in
            try body(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[0..<count]))
        }
    }

    /// The bytes as an array (allocates; cold paths only).
    public var array: [UInt8] { (0..<count).map { storage[$0] } }

    @inlinable
    public func write(to output: inout ByteWriter) {
        for i in 0..<count { output.writeUInt8(storage[i]) }
    }
}

extension FixedBytes: Equatable {
    public static func == (lhs: Self, rhs: Self) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for i in 0..<lhs.count where lhs.storage[i] != rhs.storage[i] { return false }
        return true
    }
}

extension FixedBytes: CustomStringConvertible {
    public var description: String { Hex.encode(array) }
}

/// An ATT attribute value (≤ 512 bytes), owned inline.
public typealias AttributeBytes = FixedBytes<512>
