#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small cache from byte strings (one or two parts) to what they resolve to, looked up
/// without making a String: an import file names a handful of types, units, zones, sources
/// and devices over millions of lines. Keys compare byte for byte (the store keeps names
/// byte for byte, and Swift's String equality would match canonically equivalent spellings).
/// It holds at most ``capacity`` entries; past that, a miss resolves each time and is not kept.
final class ByteKeyedCache<Value> {
    static var capacity: Int { 64 }
    private var keys: [(first: [UInt8], second: [UInt8])] = []
    private var values: [Value] = []

    /// The value cached for `first` (and `second`), else `resolve` of them, kept when non-nil.
    func value(_ first: UnsafeBufferPointer<UInt8>, _ second: UnsafeBufferPointer<UInt8> = UnsafeBufferPointer(start: nil, count: 0),
               resolve: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Value?) -> Value? {
        for position in keys.indices where Self.equal(keys[position].first, first) && Self.equal(keys[position].second, second) {
            return values[position]
        }
        guard let value = resolve(first, second) else { return nil }
        if keys.count < Self.capacity {
            keys.append((Array(first), Array(second)))
            values.append(value)
        }
        return value
    }

    private static func equal(_ stored: [UInt8], _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard stored.count == bytes.count else { return false }
        if bytes.isEmpty { return true }
        return stored.withUnsafeBufferPointer { memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0 }
    }
}
