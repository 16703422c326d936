import BandWire

/// The 24-byte header in front of every btsnoop record.
///
/// Wireshark `wiretap/btsnoop.c` (`struct btsnooprec_hdr`), BlueZ `src/shared/btsnoop.c`
/// (`struct btsnoop_pkt`). All fields big-endian.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 4 | original length: bytes the packet had on the wire |
/// | 4 | 4 | included length: bytes stored in this record (≤ original) |
/// | 8 | 4 | flags: direction and type (H1/H4), or adapter << 16 \| opcode (Linux monitor) |
/// | 12 | 4 | cumulative drops |
/// | 16 | 8 | timestamp, i64 µs since 0000-01-01 00:00 (``BtsnoopTimestamp``) |
public struct BtsnoopRecordHeader: WireCodable, Hashable, Sendable {
    public static let size = 24

    public var originalLength: UInt32
    public var includedLength: UInt32
    public var flags: UInt32
    public var cumulativeDrops: UInt32
    public var timestamp: Int64

    public init(originalLength: UInt32, includedLength: UInt32, flags: UInt32, cumulativeDrops: UInt32 = 0, timestamp: Int64) {
        self.originalLength = originalLength
        self.includedLength = includedLength
        self.flags = flags
        self.cumulativeDrops = cumulativeDrops
        self.timestamp = timestamp
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        originalLength = try input.readUInt32BE("btsnoop original length")
        includedLength = try input.readUInt32BE("btsnoop included length")
        flags = try input.readUInt32BE("btsnoop flags")
        cumulativeDrops = try input.readUInt32BE("btsnoop cumulative drops")
        timestamp = try input.readInt64BE("btsnoop timestamp")
    }

    /// Reads the 24 bytes at `pointer`, which the caller has checked are there.
    @inlinable
    init(loadingFrom pointer: UnsafeRawPointer) {
        originalLength = UInt32(bigEndian: pointer.loadUnaligned(fromByteOffset: 0, as: UInt32.self))
        includedLength = UInt32(bigEndian: pointer.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
        flags = UInt32(bigEndian: pointer.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
        cumulativeDrops = UInt32(bigEndian: pointer.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
        timestamp = Int64(bigEndian: pointer.loadUnaligned(fromByteOffset: 16, as: Int64.self))
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt32BE(originalLength)
        output.writeUInt32BE(includedLength)
        output.writeUInt32BE(flags)
        output.writeUInt32BE(cumulativeDrops)
        output.writeInt64BE(timestamp)
    }

    /// The record's time as Unix microseconds.
    @inlinable public var unixMicroseconds: Int64 { BtsnoopTimestamp.unixMicroseconds(timestamp) }
}
