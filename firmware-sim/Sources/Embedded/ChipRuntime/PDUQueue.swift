/// A first-in first-out queue of whole PDUs in one fixed region (each PDU's length, 2 bytes LE,
/// then its bytes, wrapping round the region's end): what the band's hosted image keeps between
/// its Bluetooth host and the band's services, which must never call into each other (each is
/// busy while it calls out). Its region is allocated once, at start-up; nothing else is.
public struct PDUQueue {
    private let storage: UnsafeMutableRawBufferPointer
    private var head = 0
    public private(set) var usedBytes = 0
    public private(set) var count = 0
    /// PDUs refused because they did not fit (each is counted, never silently lost).
    public private(set) var refused: UInt32 = 0

    /// Allocates `capacity` bytes (PDUs and their 2-byte lengths).
    public init(capacity: Int) {
        storage = .allocate(byteCount: capacity, alignment: 4)
    }

    public var capacity: Int { storage.count }
    public var freeBytes: Int { storage.count - usedBytes }
    public var isEmpty: Bool { count == 0 }

    /// Appends `pdu`; false (counted in ``refused``) when it does not fit.
    @discardableResult
    public mutating func append(_ pdu: UnsafeRawBufferPointer) -> Bool {
        guard pdu.count <= Int(UInt16.max), 2 + pdu.count <= freeBytes else {
            refused &+= 1
            return false
        }
        var tail = (head + usedBytes) % storage.count
        put(UInt8(truncatingIfNeeded: pdu.count), at: &tail)
        put(UInt8(truncatingIfNeeded: pdu.count >> 8), at: &tail)
        for byte in pdu { put(byte, at: &tail) }
        usedBytes += 2 + pdu.count
        count += 1
        return true
    }

    /// The oldest PDU's length, or nil when empty.
    public var firstCount: Int? {
        guard count > 0 else { return nil }
        return Int(storage[head]) | Int(storage[(head + 1) % storage.count]) << 8
    }

    /// Copies the oldest PDU into `output` (at least ``firstCount`` bytes) without removing it;
    /// returns its length, or nil when empty or `output` is too small.
    public func peek(into output: UnsafeMutableRawBufferPointer) -> Int? {
        guard let length = firstCount, length <= output.count else { return nil }
        var index = (head + 2) % storage.count
        for offset in 0..<length {
            output[offset] = storage[index]
            index = index + 1 == storage.count ? 0 : index + 1
        }
        return length
    }

    /// Removes the oldest PDU.
    public mutating func removeFirst() {
        guard let length = firstCount else { return }
        head = (head + 2 + length) % storage.count
        usedBytes -= 2 + length
        count -= 1
    }

    /// Drops every PDU (a link ended: what it queued belongs to no one).
    public mutating func removeAll() {
        head = 0
        usedBytes = 0
        count = 0
    }

    private func put(_ byte: UInt8, at index: inout Int) {
        storage[index] = byte
        index = index + 1 == storage.count ? 0 : index + 1
    }
}
