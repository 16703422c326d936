import BandWire

/// Signed Write Command (0xD2): a Write Command authenticated with a CSRK signature, used
/// without encryption.
///
/// Core 5.4 Vol 3 Part F §3.4.5.4; the signature is Vol 3 Part H §2.4.5 (sign counter u32
/// then 8-byte MAC).
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | opcode 0xD2 |
/// | 1 | 2 | attribute handle |
/// | 3 | 0…ATT_MTU−15 | attribute value |
/// | end − 12 | 12 | authentication signature |
public struct ATTSignedWriteCommand: ATTPDUType {
    public static let opcode = ATTOpcode.signedWriteCommand
    public static let signatureLength = 12

    public var handle: UInt16
    public var value: AttributeBytes
    public var signature: FixedBytes<12>

    public init(handle: UInt16, value: AttributeBytes, signature: FixedBytes<12>) {
        precondition(signature.count == Self.signatureLength, "the authentication signature is 12 bytes")
        self.handle = handle
        self.value = value
        self.signature = signature
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        try input.readOpcode(Self.opcode)
        handle = try input.readUInt16LE("attribute handle")
        guard input.remaining >= Self.signatureLength else { throw input.error(.truncated, "authentication signature") }
        var valueCursor = try input.readCursor(input.remaining - Self.signatureLength, "attribute value")
        value = try valueCursor.readAttributeValue()
        let signatureStart = input.offset
        signature = try FixedBytes<12>(copying: try input.readBytes(Self.signatureLength, "authentication signature"), offset: signatureStart)
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(Self.opcode.rawValue)
        output.writeUInt16LE(handle)
        value.write(to: &output)
        signature.write(to: &output)
    }
}
