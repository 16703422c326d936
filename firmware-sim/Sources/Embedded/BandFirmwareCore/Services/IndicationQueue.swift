import BandWire

/// Indications waiting for the one outstanding indication to be confirmed (ATT allows one at a
/// time per bearer, Core 5.4 Vol 3 Part F §3.3.2). Fixed capacity, inline storage.
struct IndicationQueue {
    static let capacity = 4
    private var handles: InlineArray<4, UInt16> = InlineArray(repeating: 0)
    private var values: InlineArray<4, FixedBytes<32>> = InlineArray(repeating: FixedBytes<32>())
    private var head = 0
    private(set) var count = 0

    var isFull: Bool { count == Self.capacity }

    mutating func push(handle: UInt16, value: UnsafeRawBufferPointer) -> Bool {
        guard !isFull, let bytes = try? FixedBytes<32>(copying: value) else { return false }
        let index = (head + count) % Self.capacity
        handles[index] = handle
        values[index] = bytes
        count += 1
        return true
    }

    mutating func pop() -> (handle: UInt16, value: FixedBytes<32>)? {
        guard count > 0 else { return nil }
        let entry = (handles[head], values[head])
        head = (head + 1) % Self.capacity
        count -= 1
        return entry
    }
}
