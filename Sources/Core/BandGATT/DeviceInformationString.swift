import BandATT
import BandWire

/// A UTF-8 string characteristic: the Device Information strings (Manufacturer Name 0x2A29,
/// Model Number 0x2A24, Serial Number 0x2A25, Hardware 0x2A27, Firmware 0x2A26 and Software
/// 0x2A28 Revision) and GAP's Device Name (0x2A00).
///
/// Device Information Service 1.1 §3; GATT XML `*_string.xml` (format `utf8s`); Core 5.4
/// Vol 3 Part C §12.1 (Device Name).
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 0…512 | UTF-8 text, not terminated |
///
/// The bytes are kept as received (some devices append NUL padding; ``string`` drops it).
/// Invalid UTF-8 is an ``ParseError/Kind/invalidValue`` at the first bad byte.
public struct DeviceInformationString: WireCodable, Equatable, Sendable, CustomStringConvertible {
    public let utf8: AttributeBytes

    /// `text` must fit in 512 UTF-8 bytes (a programming error otherwise).
    public init(_ text: String) {
        utf8 = AttributeBytes(Array(text.utf8))
    }

    /// Reads the whole remaining value.
    public init(parsing input: inout ByteCursor) throws(ParseError) {
        let start = input.offset
        let view = input.readRemaining()
        if let bad = firstInvalidUTF8Offset(view) {
            throw ParseError(.invalidValue, at: start + bad, field: "UTF-8 string")
        }
        guard view.count <= ATT.maximumAttributeValueLength else {
            throw ParseError(.invalidValue, at: start + ATT.maximumAttributeValueLength, field: "UTF-8 string")
        }
        utf8 = try AttributeBytes(copying: view, offset: start)
    }

    public func encode(into output: inout ByteWriter) {
        utf8.write(to: &output)
    }

    /// The text without trailing NULs (allocates).
    public var string: String {
        var bytes = utf8.array
        while bytes.last == 0 { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }

    public var description: String { string }
}

/// Offset of the first byte that does not start or continue a well-formed UTF-8 sequence
/// (Unicode 15 §3.9, Table 3-7: no overlongs, no surrogates, nothing above U+10FFFF); nil
/// when every byte is fine.
func firstInvalidUTF8Offset(_ bytes: UnsafeRawBufferPointer) -> Int? {
    var index = 0
    while index < bytes.count {
        let lead = bytes[index]
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0x00...0x7F: index += 1; continue
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: return index
        }
        for continuation in 1..<length {
            guard index + continuation < bytes.count else { return index + continuation }
            let byte = bytes[index + continuation]
            let (min, max): (UInt8, UInt8) = continuation == 1 ? (low, high) : (0x80, 0xBF)
            guard byte >= min, byte <= max else { return index + continuation }
        }
        index += length
    }
    return nil
}
