import BandATT
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

func attributeBytes(_ hex: String) -> AttributeBytes { AttributeBytes(BandTestSupport.bytes(hex)) }

import BandTestSupport

/// Decodes one whole PDU through the opcode dispatch.
func decodePDU(_ input: [UInt8]) throws(ParseError) -> ATTPDU {
    try parse(input) { (cursor) throws(ParseError) in try ATTPDU(parsing: &cursor) }
}
