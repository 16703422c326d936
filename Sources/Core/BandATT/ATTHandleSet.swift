import BandWire

/// The "Set Of Handles" parameter shared by Read Multiple Request (0x0E, Core 5.4 Vol 3 Part F
/// §3.4.4.7) and Read Multiple Variable Request (0x20, §3.4.4.11): two or more little-endian
/// handles filling the rest of the PDU.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 2·n, n ≥ 2 | handles, uint16 LE each |
public struct ATTHandleSet: Equatable, Sendable {
    /// The handles, little-endian, inline.
    public private(set) var bytes: ATTParameterBytes

    /// At least two handles (both PDUs say "Two or more attribute handles").
    public init(_ handles: some Collection<UInt16>, pdu: StaticString) {
        precondition(handles.count >= 2, "\(pdu) needs at least two handles")
        bytes = ATTParameterBytes()
        for handle in handles {
            precondition(bytes.appendUInt16LE(handle), "too many handles for one PDU")
        }
    }

    public var count: Int { bytes.count / 2 }

    public func handle(at index: Int) -> UInt16 {
        precondition(index >= 0 && index < count, "handle index out of range")
        return bytes.uint16LE(at: 2 * index)
    }

    /// Reads the handles that fill the rest of the PDU.
    public init(parsing input: inout ByteCursor) throws(ParseError) {
        // Two handles, and whole handles only: a partial one is a truncated PDU.
        guard input.remaining >= 4 else { throw input.error(.truncated, "set of handles") }
        let wholeHandles = input.remaining & ~1
        let start = input.offset
        bytes = try ATTParameterBytes(copying: try input.readBytes(wholeHandles, "set of handles"), offset: start)
        guard input.isAtEnd else { throw input.error(.truncated, "attribute handle") }
    }

    public func encode(into output: inout ByteWriter) {
        bytes.write(to: &output)
    }
}
