import BandWire

/// Exchange MTU Request (0x02): the client's receive MTU.
///
/// Core 5.4 Vol 3 Part F §3.4.2.1.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | opcode 0x02 |
/// | 1 | 2 | Client Rx MTU |
public struct ATTExchangeMTURequest: ATTPDUType {
    public static let opcode = ATTOpcode.exchangeMTURequest

    /// As sent; a value below 23 is kept so the server can apply §3.4.2.2 (use 23).
    public var clientRxMTU: UInt16

    public init(clientRxMTU: UInt16) { self.clientRxMTU = clientRxMTU }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        try input.readOpcode(Self.opcode)
        clientRxMTU = try input.readUInt16LE("Client Rx MTU")
        try input.expectEnd("Exchange MTU Request")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(Self.opcode.rawValue)
        output.writeUInt16LE(clientRxMTU)
    }
}

/// The ATT_MTU both sides use after an exchange: the smaller of the two Rx MTUs, never below
/// the LE default of 23 (Core 5.4 Vol 3 Part F §3.4.2.2).
public func negotiatedATTMTU(client: UInt16, server: UInt16) -> Int {
    max(ATT.defaultLEMTU, Int(min(client, server)))
}
