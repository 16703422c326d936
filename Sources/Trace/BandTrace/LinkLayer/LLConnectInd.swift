import BandWire

/// CONNECT_IND (CONNECT_REQ before Core 5.0; AUX_CONNECT_REQ on a secondary channel has the
/// same payload): an initiator asks an advertiser for a connection, and names the access
/// address every data PDU of that connection will carry.
///
/// Core 5.4 Vol 6 Part B §2.3.3.1. Advertising PDU header: type 0b0101 in bits 0–3, TxAdd
/// (bit 6) = InitA is random, RxAdd (bit 7) = AdvA is random. Payload, little-endian:
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 6 | InitA: the initiator, which becomes the central |
/// | 6 | 6 | AdvA: the advertiser, which becomes the peripheral |
/// | 12 | 4 | AA: the connection's access address |
/// | 16 | 3 | CRCInit |
/// | 19 | 1 | WinSize |
/// | 20 | 2 | WinOffset |
/// | 22 | 2 | Interval (× 1.25 ms) |
/// | 24 | 2 | Latency |
/// | 26 | 2 | Timeout (× 10 ms) |
/// | 28 | 5 | ChM: used data channels, bit per channel 0–36 |
/// | 33 | 1 | Hop (bits 0–4), SCA (bits 5–7) |
public struct LLConnectInd: Hashable, Sendable {
    public static let pduType: UInt8 = 0x05
    public static let payloadLength = 34

    public var initiator: LEAddress
    public var advertiser: LEAddress
    public var accessAddress: UInt32
    public var intervalUnits: UInt16
    public var channelMap: UInt64
    public var hopIncrement: UInt8

    /// Parses `payload` of an advertising PDU whose header byte is `header`.
    public init(header: UInt8, payload: UnsafeRawBufferPointer, offset: Int) throws(ParseError) {
        var cursor = ByteCursor(payload, baseOffset: offset)
        guard payload.count == Self.payloadLength else {
            throw ParseError(payload.count < Self.payloadLength ? .truncated : .trailingBytes,
                             at: offset + min(payload.count, Self.payloadLength), field: "CONNECT_IND payload")
        }
        let initiatorBytes = try cursor.readBytes(6, "CONNECT_IND InitA")
        let advertiserBytes = try cursor.readBytes(6, "CONNECT_IND AdvA")
        initiator = LEAddress(BluetoothAddress(wireOrder: initiatorBytes), type: header & 0x40 != 0 ? .random : .public)
        advertiser = LEAddress(BluetoothAddress(wireOrder: advertiserBytes), type: header & 0x80 != 0 ? .random : .public)
        accessAddress = try cursor.readUInt32LE("CONNECT_IND AA")
        try cursor.skip(3 + 1 + 2, "CONNECT_IND CRCInit, WinSize, WinOffset")
        intervalUnits = try cursor.readUInt16LE("CONNECT_IND Interval")
        try cursor.skip(4, "CONNECT_IND Latency, Timeout")
        var map: UInt64 = 0
        for i in 0..<5 { map |= UInt64(try cursor.readUInt8("CONNECT_IND ChM")) << (8 * UInt64(i)) }
        channelMap = map
        hopIncrement = try cursor.readUInt8("CONNECT_IND Hop") & 0x1F
    }
}

/// The first byte of a data-channel PDU header (Core 5.4 Vol 6 Part B §2.4).
///
/// | bits | field |
/// |---|---|
/// | 0–1 | LLID: 0b01 continuation of an L2CAP message (or empty PDU), 0b10 start of one, 0b11 LL control PDU |
/// | 2 | NESN: next sequence number the sender expects from its peer |
/// | 3 | SN: the sender's sequence number |
/// | 4 | MD: more data |
/// | 5 | CP: a CTEInfo byte follows the header (Core 5.1+) |
public struct LLDataHeader: Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public var llid: UInt8 { rawValue & 0x3 }
    public var nextExpectedSequence: UInt8 { (rawValue >> 2) & 1 }
    public var sequence: UInt8 { (rawValue >> 3) & 1 }
    public var hasCTEInfo: Bool { rawValue & 0x20 != 0 }

    public static let llidContinuation: UInt8 = 0b01
    public static let llidStart: UInt8 = 0b10
    public static let llidControl: UInt8 = 0b11
}

/// LL control PDU opcodes BandKit acts on (Core 5.4 Vol 6 Part B §2.4.2).
///
/// | value | PDU | effect on following |
/// |---|---|---|
/// | 0x02 | LL_TERMINATE_IND (error code u8) | the connection ends |
/// | 0x03 | LL_ENC_REQ | encryption is being set up |
/// | 0x05 | LL_START_ENC_REQ | from here on PDUs are encrypted (counted, not decoded) |
public enum LLControlOpcode {
    public static let terminateInd: UInt8 = 0x02
    public static let encReq: UInt8 = 0x03
    public static let startEncReq: UInt8 = 0x05
}
