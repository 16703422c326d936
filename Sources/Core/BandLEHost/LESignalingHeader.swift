import BandWire

/// The header of an LE signaling command on L2CAP channel 0x0005 (Core 5.4 Vol 3 Part A §4):
/// one command per PDU on LE.
///
/// | bytes | field |
/// |---|---|
/// | u8 | code (``LESignalingCode``) |
/// | u8 | identifier (non-zero; a response repeats its request's) |
/// | u16 LE | data length |
public struct LESignalingHeader: WireCodable, Hashable, Sendable {
    public static let size = 4

    public var code: LESignalingCode
    public var identifier: UInt8
    public var dataLength: UInt16

    public init(code: LESignalingCode, identifier: UInt8, dataLength: UInt16) {
        self.code = code
        self.identifier = identifier
        self.dataLength = dataLength
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        code = LESignalingCode(rawValue: try input.readUInt8("signaling code"))
        identifier = try input.readUInt8("signaling identifier")
        dataLength = try input.readUInt16LE("signaling data length")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(code.rawValue)
        output.writeUInt8(identifier)
        output.writeUInt16LE(dataLength)
    }
}

/// LE signaling command codes (Core 5.4 Vol 3 Part A §4, Table 4.2).
public struct LESignalingCode: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let commandReject = LESignalingCode(rawValue: 0x01)
    public static let disconnectionRequest = LESignalingCode(rawValue: 0x06)
    public static let connectionParameterUpdateRequest = LESignalingCode(rawValue: 0x12)
    public static let connectionParameterUpdateResponse = LESignalingCode(rawValue: 0x13)
    public static let leCreditBasedConnectionRequest = LESignalingCode(rawValue: 0x14)
    public static let leCreditBasedConnectionResponse = LESignalingCode(rawValue: 0x15)
}
