import BandTestSupport
import BandWire
import Testing

/// The four checks every packet type gets: it encodes to the vector, the vector decodes to it,
/// every strict prefix is `truncated`, and (for fixed-length types) one extra byte is `trailingBytes`.
func checkCodec<T: WireCodable & Equatable>(_ value: T, _ hex: String, fixedLength: Bool = true,
                                            sourceLocation: SourceLocation = #_sourceLocation) {
    let wire = bytes(hex)
    #expect(Hex.encode(value.encodedBytes()) == Hex.encode(wire), "encoding", sourceLocation: sourceLocation)
    #expect((try? T(parsingAll: wire)) == value, "decoding", sourceLocation: sourceLocation)
    #expect(prefixesThatDidNotTruncate(wire) { (c) throws(ParseError) in try T(parsing: &c) } == [],
            "every prefix must be truncated", sourceLocation: sourceLocation)
    guard fixedLength else { return }
    #expect(throws: ParseError(.trailingBytes, at: wire.count), "extra byte", sourceLocation: sourceLocation) {
        try T(parsingAll: wire + [0x00])
    }
}

/// Decodes `hex` as `T` and returns the error (nil if it decoded).
func parseError<T: WireDecodable>(_ type: T.Type, _ hex: String) -> ParseError? {
    do throws(ParseError) {
        _ = try T(parsingAll: bytes(hex))
        return nil
    } catch {
        return error
    }
}
