import BandWire

/// LE Set Advertising Data and LE Set Scan Response Data (Core 5.4 Vol 4 Part E §7.8.7,
/// §7.8.8): the same layout, a length and always 31 bytes, zero-padded.
///
/// | bytes | field |
/// |---|---|
/// | u8 | significant length (0…31) |
/// | 31 | AD structures, then zeros |
public struct LEAdvertisingPayloadCommand: HCICommandParameters, Equatable, Sendable {
    public static let capacity = 31

    public var opcode: HCIOpcode
    public var payload: FixedBytes<31>

    /// `opcode`: ``HCIOpcode/leSetAdvertisingData`` or ``HCIOpcode/leSetScanResponseData``.
    public init(opcode: HCIOpcode, payload: FixedBytes<31>) {
        self.opcode = opcode
        self.payload = payload
    }

    /// Reads the parameters of a command with `opcode`.
    public init(opcode: HCIOpcode, parsing input: inout ByteCursor) throws(ParseError) {
        self.opcode = opcode
        let lengthOffset = input.offset
        let length = Int(try input.readUInt8("advertising data length"))
        guard length <= Self.capacity else { throw ParseError(.invalidValue, at: lengthOffset, field: "advertising data length") }
        let all = try input.readBytes(Self.capacity, "advertising data")
        payload = try FixedBytes(copying: UnsafeRawBufferPointer(rebasing: all[0..<length]), offset: lengthOffset + 1)
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(UInt8(payload.count))
        payload.write(to: &output)
        for _ in payload.count..<Self.capacity { output.writeUInt8(0) }
    }
}
