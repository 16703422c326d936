import BandGATT
import BandTestSupport
import BandWire

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
