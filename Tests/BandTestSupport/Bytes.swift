import BandWire

/// Test helper: bytes from a hex string literal such as `"1b 29 00 06 52"`. Traps on bad hex (a test bug).
public func bytes(_ hex: String) -> [UInt8] {
    guard let decoded = Hex.decode(hex) else { fatalError("bad hex in test vector: \(hex)") }
    return decoded
}

/// Decodes `input` with `decode`, requiring every byte to be consumed.
public func parse<T>(_ input: [UInt8], _ decode: (inout ByteCursor) throws(ParseError) -> T) throws(ParseError) -> T {
    let result: Result<T, ParseError> = input.withUnsafeBytes { raw in
        var cursor = ByteCursor(raw)
        do throws(ParseError) {
            let value = try decode(&cursor)
            try cursor.expectEnd()
            return .success(value)
        } catch {
            return .failure(error)
        }
    }
    return try result.get()
}

/// Every strict prefix of `input` must fail with `.truncated` (never crash, never succeed).
/// Returns the prefixes that did not (empty when the decoder is right).
public func prefixesThatDidNotTruncate<T>(_ input: [UInt8], _ decode: (inout ByteCursor) throws(ParseError) -> T) -> [Int] {
    var bad: [Int] = []
    for length in 0..<input.count {
        do throws(ParseError) {
            _ = try parse(Array(input[0..<length]), decode)
            bad.append(length)
        } catch {
            if error.kind != .truncated { bad.append(length) }
        }
    }
    return bad
}
