import BandWire

/// Find Information Request (0x04): list handles and types in a range (descriptor discovery).
///
/// Core 5.4 Vol 3 Part F §3.4.3.1.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | opcode 0x04 |
/// | 1 | 2 | starting handle |
/// | 3 | 2 | ending handle |
public struct ATTFindInformationRequest: ATTPDUType {
    public static let opcode = ATTOpcode.findInformationRequest

    /// As sent; check ``ATTHandleRange/isValid`` before serving it.
    public var range: ATTHandleRange

    public init(range: ATTHandleRange) { self.range = range }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        try input.readOpcode(Self.opcode)
        range = try ATTHandleRange(parsing: &input)
        try input.expectEnd("Find Information Request")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(Self.opcode.rawValue)
        range.encode(into: &output)
    }
}
