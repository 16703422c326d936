import BandWire

/// The classic pcap framer: a 24-byte file header, then records of a 16-byte header and the
/// packet, with "need more data" semantics like ``BtsnoopRecordParser``.
///
/// Checks the magic (all four: µs/ns, both byte orders), major version 2, and every record's
/// captured length (≤ ``maximumPacketLength``) before trusting it.
public struct PcapRecordParser: CaptureContainerFramer, Sendable {
    public static let format = CaptureFileError.Format.pcap
    public static let maximumPacketLength = 262_144
    public static var maximumBufferedLength: Int { PcapRecordHeader.size + maximumPacketLength }

    public private(set) var header: PcapFileHeader?
    private var order = PcapngByteOrder(bigEndian: false)
    /// Index of the next record.
    public private(set) var recordIndex = 0
    /// File offset of the next unconsumed byte.
    public private(set) var offset = 0

    public init() {}

    public var errorPlace: (blockIndex: Int?, offset: Int) { (header == nil ? nil : recordIndex, offset) }

    private func error(_ kind: CaptureFileError.Kind, index: Int?, at offset: Int) -> CaptureFileError {
        CaptureFileError(.pcap, kind, blockIndex: index, offset: offset)
    }

    public mutating func parseFileHeader(_ input: inout ByteCursor) throws(CaptureFileError) -> Bool {
        if header != nil { return true }
        guard input.remaining >= 4 else { return false }
        let base = input.bytes.baseAddress! + input.position
        guard let (order, nanoseconds) = PcapFileHeader.magic(base) else { throw error(.badMagic, index: nil, at: offset) }
        guard input.remaining >= PcapFileHeader.size else { return false }
        let parsed = PcapFileHeader(base, order: order, nanoseconds: nanoseconds)
        guard parsed.majorVersion == 2 else {
            throw error(.unsupportedVersion(major: parsed.majorVersion, minor: parsed.minorVersion), index: nil, at: offset + 4)
        }
        self.order = order
        header = parsed
        input.advance(PcapFileHeader.size)
        offset += PcapFileHeader.size
        return true
    }

    public mutating func nextPacket(_ input: inout ByteCursor) throws(CaptureFileError) -> CapturePacket? {
        guard let header else {
            guard try parseFileHeader(&input) else { return nil }
            return try nextPacket(&input)
        }
        guard input.remaining >= PcapRecordHeader.size else { return nil }
        let base = input.bytes.baseAddress! + input.position
        let captured = order.u32(base, 8)
        guard captured <= Self.maximumPacketLength else {
            throw error(.packetTooLong(captured: captured, limit: Self.maximumPacketLength), index: recordIndex, at: offset)
        }
        let total = PcapRecordHeader.size + Int(captured)
        guard input.remaining >= total else { return nil }
        let seconds = Int64(order.u32(base, 0))
        let fraction = Int64(order.u32(base, 4))
        let micros = seconds &* 1_000_000 &+ (header.nanoseconds ? fraction / 1000 : fraction)
        let packet = CapturePacket(index: recordIndex, offset: offset, dataOffset: offset + PcapRecordHeader.size,
                                   interfaceID: 0, linkType: header.linkType, unixMicroseconds: micros,
                                   originalLength: Int(order.u32(base, 12)),
                                   data: UnsafeRawBufferPointer(start: base + PcapRecordHeader.size, count: Int(captured)))
        input.advance(total)
        offset += total
        recordIndex += 1
        return packet
    }

    public func finish(unconsumed input: ByteCursor) throws(CaptureFileError) {
        let available = input.remaining
        guard header != nil else {
            if available >= 4, PcapFileHeader.magic(input.bytes.baseAddress! + input.position) == nil {
                throw error(.badMagic, index: nil, at: offset)
            }
            throw error(.truncatedFileHeader(available: available), index: nil, at: offset)
        }
        guard available > 0 else { return }
        let expected = available >= 12 ? PcapRecordHeader.size + Int(order.u32(input.bytes.baseAddress! + input.position, 8))
                                       : PcapRecordHeader.size
        throw error(.truncated(expected: expected, available: available), index: recordIndex, at: offset)
    }
}

extension PcapRecordParser {
    // Concrete, not the protocol's default: a caller in another module that specialises
    // CaptureFileReader<PcapRecordParser> calls this directly, and a default implementation would be its
    // unspecialised generic body.
    public static func nextTraceRecord(of reader: CaptureFileReader<PcapRecordParser>) throws(CaptureFileError) -> TraceRecord? {
        try reader.readNextTraceRecord()
    }
}
