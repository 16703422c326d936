import BandWire

/// Read Multiple Request (0x0E): read several fixed-length values at once.
///
/// Core 5.4 Vol 3 Part F §3.4.4.7.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | opcode 0x0E |
/// | 1 | 2·n, n ≥ 2 | set of handles |
public struct ATTReadMultipleRequest: ATTPDUType {
    public static let opcode = ATTOpcode.readMultipleRequest

    /// The handles, little-endian, inline.
    public private(set) var handleBytes: ATTParameterBytes

    /// At least two handles (§3.4.4.7: "Two or more attribute handles").
    public init(handles: some Collection<UInt16>) {
        precondition(handles.count >= 2, "Read Multiple Request needs at least two handles")
        handleBytes = ATTParameterBytes()
        for handle in handles {
            precondition(handleBytes.appendUInt16LE(handle), "too many handles for one PDU")
        }
    }

    public var handleCount: Int { handleBytes.count / 2 }

    public func handle(at index: Int) -> UInt16 {
        precondition(index >= 0 && index < handleCount, "handle index out of range")
        return handleBytes.uint16LE(at: 2 * index)
    }

    /// The handles in order (allocates; cold paths and tests).
    public var handles: [UInt16] { (0..<handleCount).map(handle(at:)) }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        try input.readOpcode(Self.opcode)
        // Two handles, and whole handles only: a partial one is a truncated PDU.
        guard input.remaining >= 4 else { throw input.error(.truncated, "set of handles") }
        let wholeHandles = input.remaining & ~1
        let start = input.offset
        handleBytes = try ATTParameterBytes(copying: try input.readBytes(wholeHandles, "set of handles"), offset: start)
        guard input.isAtEnd else { throw input.error(.truncated, "attribute handle") }
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(Self.opcode.rawValue)
        handleBytes.write(to: &output)
    }
}
