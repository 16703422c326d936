import BandWire

/// LE Data Length Change (Core 5.4 Vol 4 Part E §7.7.65.7): the link-layer payload sizes a
/// link now uses in each direction.
///
/// | bytes | field |
/// |---|---|
/// | u8 | subevent 0x07 |
/// | u16 LE | connection handle (12 bits) |
/// | u16 LE | MaxTxOctets, 27–251 |
/// | u16 LE | MaxTxTime, 328–17040 µs |
/// | u16 LE | MaxRxOctets, 27–251 |
/// | u16 LE | MaxRxTime, 328–17040 µs |
public struct LEDataLengthChange: WireCodable, Equatable, Sendable {
    public var handle: UInt16
    public var transmitOctets: UInt16
    public var transmitTime: UInt16
    public var receiveOctets: UInt16
    public var receiveTime: UInt16

    public init(handle: UInt16, transmitOctets: UInt16, transmitTime: UInt16, receiveOctets: UInt16, receiveTime: UInt16) {
        self.handle = handle & 0x0FFF
        self.transmitOctets = transmitOctets
        self.transmitTime = transmitTime
        self.receiveOctets = receiveOctets
        self.receiveTime = receiveTime
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        let subeventOffset = input.offset
        guard try input.readUInt8("LE subevent code") == LEMetaSubevent.dataLengthChange.rawValue else {
            throw ParseError(.invalidValue, at: subeventOffset, field: "LE subevent code")
        }
        handle = try input.readUInt16LE("connection handle") & 0x0FFF
        func octets(_ field: StaticString) throws(ParseError) -> UInt16 {
            let offset = input.offset
            let value = try input.readUInt16LE(field)
            guard LESetDataLength.octetRange.contains(value) else { throw ParseError(.invalidValue, at: offset, field: field) }
            return value
        }
        func time(_ field: StaticString) throws(ParseError) -> UInt16 {
            let offset = input.offset
            let value = try input.readUInt16LE(field)
            guard LESetDataLength.timeRange.contains(value) else { throw ParseError(.invalidValue, at: offset, field: field) }
            return value
        }
        transmitOctets = try octets("MaxTxOctets")
        transmitTime = try time("MaxTxTime")
        receiveOctets = try octets("MaxRxOctets")
        receiveTime = try time("MaxRxTime")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(LEMetaSubevent.dataLengthChange.rawValue)
        output.writeUInt16LE(handle)
        output.writeUInt16LE(transmitOctets)
        output.writeUInt16LE(transmitTime)
        output.writeUInt16LE(receiveOctets)
        output.writeUInt16LE(receiveTime)
    }
}
