import BandWire

/// The 16-byte header that starts every btsnoop file.
///
/// Wireshark `wiretap/btsnoop.c` (`btsnoop_hdr`, `btsnoop_magic`), BlueZ
/// `src/shared/btsnoop.c` (`struct btsnoop_hdr`), RFC 1761 §3 (snoop, which btsnoop copies).
/// All fields big-endian.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 8 | identification pattern `"btsnoop\0"` |
/// | 8 | 4 | version, u32 BE, always 1 |
/// | 12 | 4 | datalink, u32 BE (``BtsnoopDatalink``) |
public struct BtsnoopFileHeader: WireCodable, Hashable, Sendable {
    public static let size = 16
    public static let supportedVersion: UInt32 = 1
    /// `"btsnoop\0"`.
    static let magic: UInt64 = 0x6274_736E_6F6F_7000

    public var version: UInt32
    public var datalink: BtsnoopDatalink

    public init(datalink: BtsnoopDatalink, version: UInt32 = BtsnoopFileHeader.supportedVersion) {
        self.version = version
        self.datalink = datalink
    }

    /// Parses the header. The magic and version are checked here (nothing else could make
    /// sense of the file otherwise); whether the datalink is supported is the reader's call.
    public init(parsing input: inout ByteCursor) throws(ParseError) {
        // Byte by byte, so that a short file that is not btsnoop says "not btsnoop", not "truncated".
        for i in 0..<8 {
            let expected = UInt8(truncatingIfNeeded: Self.magic >> (8 * UInt64(7 - i)))
            guard try input.peekUInt8("btsnoop magic") == expected else {
                throw input.error(.invalidValue, "btsnoop magic")
            }
            try input.skip(1)
        }
        let versionOffset = input.offset
        version = try input.readUInt32BE("btsnoop version")
        datalink = BtsnoopDatalink(rawValue: try input.readUInt32BE("btsnoop datalink"))
        guard version == Self.supportedVersion else {
            throw ParseError(.unsupported, at: versionOffset, field: "btsnoop version")
        }
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt64BE(Self.magic)
        output.writeUInt32BE(version)
        output.writeUInt32BE(datalink.rawValue)
    }
}
