import BandWire

/// LE Long Term Key Request: the parameters of LE Meta event 0x3E, subevent 0x05 (Core 5.4
/// Vol 4 Part E §7.7.65.5): the central starts encryption and the peripheral's host must
/// answer with the key (``LELongTermKeyRequestReply``). With LE Secure Connections keys both
/// random number and EDIV are zero.
///
/// | bytes | field |
/// |---|---|
/// | u8 | subevent code = 0x05 |
/// | u16 LE | connection handle |
/// | u64 LE | random number |
/// | u16 LE | encrypted diversifier |
public struct LELongTermKeyRequest: WireCodable, Hashable, Sendable {
    public static let subevent = LEMetaSubevent.longTermKeyRequest

    public var handle: UInt16
    public var randomNumber: UInt64
    public var encryptedDiversifier: UInt16

    public init(handle: UInt16, randomNumber: UInt64 = 0, encryptedDiversifier: UInt16 = 0) {
        self.handle = handle
        self.randomNumber = randomNumber
        self.encryptedDiversifier = encryptedDiversifier
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        guard try input.readUInt8("LE subevent code") == Self.subevent.rawValue else {
            throw ParseError(.invalidValue, at: input.offset - 1, field: "LE subevent code")
        }
        handle = try input.readUInt16LE("connection handle") & 0x0FFF
        randomNumber = try input.readUInt64LE("random number")
        encryptedDiversifier = try input.readUInt16LE("encrypted diversifier")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(Self.subevent.rawValue)
        output.writeUInt16LE(handle)
        output.writeUInt64LE(randomNumber)
        output.writeUInt16LE(encryptedDiversifier)
    }
}
