import BandWire

/// The header every FIT file starts with: 12 bytes, or 14 with a CRC of the first 12 (0 = not
/// computed). `dataSize` counts the records between the header and the file's 2-byte CRC.
public struct FitFileHeader: Hashable, Sendable {
    public var size: UInt8
    public var protocolVersion: UInt8
    public var profileVersion: UInt16
    public var dataSize: UInt32
    /// The header's own CRC (14-byte headers); nil for 12-byte headers.
    public var crc: UInt16?

    public static let signature: [UInt8] = Array(".FIT".utf8)

    public init(size: UInt8 = 14, protocolVersion: UInt8 = 0x20, profileVersion: UInt16 = 2132, dataSize: UInt32, crc: UInt16? = nil) {
        self.size = size
        self.protocolVersion = protocolVersion
        self.profileVersion = profileVersion
        self.dataSize = dataSize
        self.crc = crc
    }

    /// Reads and checks the header: its size (12, or 14 and more with a CRC), the `.FIT` signature,
    /// a protocol major version this decoder reads (1 or 2) and, when non-zero, the header CRC.
    public init(parsing input: inout ByteCursor) throws(ParseError) {
        let start = input.offset
        let startPosition = input.position
        size = try input.readUInt8("header size")
        guard size == 12 || size >= 14 else { throw ParseError(.invalidValue, at: start, field: "header size (12 or 14)") }
        protocolVersion = try input.readUInt8("protocol version")
        guard protocolVersion >> 4 <= 2 else { throw ParseError(.unsupported, at: start + 1, field: "protocol version") }
        profileVersion = try input.readUInt16LE("profile version")
        dataSize = try input.readUInt32LE("data size")
        let signatureOffset = input.offset
        let signature = try input.readBytes(4, "\".FIT\" signature")
        guard signature.elementsEqual(Self.signature) else {
            throw ParseError(.invalidValue, at: signatureOffset, field: "\".FIT\" signature")
        }
        if size >= 14 {
            let crcOffset = input.offset
            let stored = try input.readUInt16LE("header CRC")
            crc = stored
            let computed = FitCRC.checksum(UnsafeRawBufferPointer(rebasing: input.bytes[startPosition..<startPosition + 12]))
            guard stored == 0 || stored == computed else { throw ParseError(.invalidValue, at: crcOffset, field: "header CRC") }
            // Header bytes beyond 14 belong to a later protocol: skipped, as the protocol asks.
            try input.skip(Int(size) - 14, "header")
        } else {
            crc = nil
        }
    }

    /// The header bytes; a 14-byte header gets its CRC computed.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = [size == 12 ? 12 : 14, protocolVersion,
                              UInt8(truncatingIfNeeded: profileVersion), UInt8(truncatingIfNeeded: profileVersion >> 8)]
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: dataSize >> UInt32(shift))) }
        bytes += Self.signature
        if size != 12 {
            let crc = FitCRC.checksum(bytes)
            bytes += [UInt8(truncatingIfNeeded: crc), UInt8(truncatingIfNeeded: crc >> 8)]
        }
        return bytes
    }
}
