import BandWire

/// Exchange MTU Response (0x03): the server's receive MTU.
///
/// Core 5.4 Vol 3 Part F §3.4.2.2.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | opcode 0x03 |
/// | 1 | 2 | Server Rx MTU |
public struct ATTExchangeMTUResponse: ATTPDUType {
    public static let opcode = ATTOpcode.exchangeMTUResponse

    public var serverRxMTU: UInt16

    public init(serverRxMTU: UInt16) { self.serverRxMTU = serverRxMTU }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        try input.readOpcode(Self.opcode)
        serverRxMTU = try input.readUInt16LE("Server Rx MTU")
        try input.expectEnd("Exchange MTU Response")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(Self.opcode.rawValue)
        output.writeUInt16LE(serverRxMTU)
    }
}
