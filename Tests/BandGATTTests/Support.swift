import BandGATT
import BandTestSupport
import BandWire

/// Encodes `value` into a fresh buffer and returns the bytes (tests only: allocates).
func encoded(_ value: some WireEncodable, capacity: Int = 1024) -> [UInt8] {
    var storage = [UInt8](repeating: 0, count: capacity)
    let count = storage.withUnsafeMutableBytes { raw -> Int in
        var writer = ByteWriter(raw)
        value.encode(into: &writer)
        return (try? writer.finish()) ?? -1
    }
    precondition(count >= 0, "test encode buffer too small")
    return Array(storage[0..<count])
}

/// Decodes `input` as the whole value of a `T`.
func decode<T: WireDecodable>(_ type: T.Type, _ input: [UInt8]) throws(ParseError) -> T {
    try parse(input) { (cursor) throws(ParseError) in try T(parsing: &cursor) }
}

/// Strict prefixes of `input` that `T` decodes without a `.truncated` error.
func prefixesNotTruncated<T: WireDecodable>(_ type: T.Type, _ input: [UInt8]) -> [Int] {
    prefixesThatDidNotTruncate(input) { (cursor) throws(ParseError) in try T(parsing: &cursor) }
}

/// Decodes what `value` encodes to, and re-encodes it: both steps must be lossless.
func roundTrip<T: WireCodable & Equatable>(_ value: T) throws(ParseError) -> (decoded: T, bytes: [UInt8], reencoded: [UInt8]) {
    let wire = encoded(value)
    let decoded = try decode(T.self, wire)
    return (decoded, wire, encoded(decoded))
}
