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

    /// The handles, in order.
    public private(set) var handleSet: ATTHandleSet

    /// The handles, little-endian, inline.
    public var handleBytes: ATTParameterBytes { handleSet.bytes }

    /// At least two handles.
    public init(handles: some Collection<UInt16>) {
        handleSet = ATTHandleSet(handles, pdu: "Read Multiple Request")
    }

    public var handleCount: Int { handleSet.count }

    public func handle(at index: Int) -> UInt16 { handleSet.handle(at: index) }

    /// The handles in order (allocates; cold paths and tests).
    public var handles: [UInt16] { (0..<handleCount).map(handle(at:)) }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        try input.readOpcode(Self.opcode)
        handleSet = try ATTHandleSet(parsing: &input)
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(Self.opcode.rawValue)
        handleSet.encode(into: &output)
    }
}
