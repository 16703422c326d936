import BandWire

/// Encodes `value` into a fresh buffer and returns the bytes (tests only: allocates).
/// Traps when `capacity` is too small, which is a bug in the test.
public func encoded(_ value: some WireEncodable, capacity: Int = 1024) -> [UInt8] {
    var storage = [UInt8](repeating: 0, count: capacity)
    let count = storage.withUnsafeMutableBytes { raw -> Int in
        var writer = ByteWriter(raw)
        value.encode(into: &writer)
        return (try? writer.finish()) ?? -1
    }
    precondition(count >= 0, "test encode buffer of \(capacity) bytes too small")
    return Array(storage[0..<count])
}
