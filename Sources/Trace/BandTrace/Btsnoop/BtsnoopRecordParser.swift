import BandWire

/// The btsnoop framer: turns a stream of bytes into records, with "need more data" semantics.
///
/// Feed it whatever bytes are available; it returns the next record (a view into those
/// bytes) and consumes exactly that record, or returns nil and consumes nothing when the
/// bytes end inside the file header or a record. It keeps the record index and the file
/// offset itself, so errors always say where in the *file* they are, whatever the caller's
/// buffering. At end of input, ``finish(unconsumed:)`` turns leftover bytes into a
/// truncation error.
///
/// Checks every length before trusting it: included ≤ original, and included ≤
/// ``maximumRecordLength`` (tshark's `WTAP_MAX_PACKET_SIZE_STANDARD`; the largest HCI
/// packet, an ACL packet with an H4 byte, is 65 540 bytes).
public struct BtsnoopRecordParser: CapturePacketFramer, Sendable {
    public static let maximumRecordLength = 262_144
    public static var maximumBufferedLength: Int { BtsnoopRecordHeader.size + maximumRecordLength }
    public static var traceFileFormat: TraceFileFormat { .btsnoop }

    /// The file's datalink, once its header has been parsed.
    public private(set) var datalink: BtsnoopDatalink?
    /// Index of the next record.
    public private(set) var recordIndex = 0
    /// File offset of the next unconsumed byte.
    public private(set) var offset = 0

    public init() {}

    /// Bytes needed in one piece to make progress: the file header, a record header, or a
    /// whole record once its header has been seen. A buffer of
    /// `BtsnoopRecordHeader.size + maximumRecordLength` bytes always suffices.
    public func bytesNeeded(_ input: ByteCursor) -> Int {
        guard datalink != nil else { return BtsnoopFileHeader.size }
        guard input.remaining >= 8 else { return BtsnoopRecordHeader.size }
        var peek = input
        let included = (try? { () throws(ParseError) -> UInt32 in
            _ = try peek.readUInt32BE()
            return try peek.readUInt32BE()
        }()) ?? 0
        return BtsnoopRecordHeader.size + Int(min(included, UInt32(Self.maximumRecordLength)))
    }

    /// Parses the file header if it has not been yet. Returns false when more bytes are needed.
    public mutating func parseFileHeader(_ input: inout ByteCursor) throws(BtsnoopError) -> Bool {
        if datalink != nil { return true }
        var attempt = input
        let header: BtsnoopFileHeader
        do throws(ParseError) {
            header = try BtsnoopFileHeader(parsing: &attempt)
        } catch {
            switch error.kind {
            case .truncated: return false
            case .unsupported:
                throw BtsnoopError(.unsupportedVersion(versionField(input)), recordIndex: nil, offset: offset + 8)
            default:
                throw BtsnoopError(.badMagic, recordIndex: nil, offset: offset)
            }
        }
        guard header.datalink.isSupported else {
            throw BtsnoopError(.unsupportedDatalink(header.datalink), recordIndex: nil, offset: offset + 12)
        }
        datalink = header.datalink
        input = attempt
        offset += BtsnoopFileHeader.size
        return true
    }

    /// The next record, or nil when `input` ends before it does (nothing consumed then).
    public mutating func nextPacket(_ input: inout ByteCursor) throws(BtsnoopError) -> BtsnoopRecord? {
        if datalink == nil {
            guard try parseFileHeader(&input) else { return nil }
        }
        guard input.remaining >= BtsnoopRecordHeader.size else { return nil }
        // The size is checked, so the header is read with plain loads (this is the hot loop);
        // BtsnoopRecordHeader(parsing:) is the same layout, field by field.
        let header = BtsnoopRecordHeader(loadingFrom: input.bytes.baseAddress! + input.position)
        var attempt = input
        do throws(ParseError) { try attempt.skip(BtsnoopRecordHeader.size) } catch { return nil }
        guard header.includedLength <= header.originalLength else {
            throw BtsnoopError(.includedLengthExceedsOriginal(included: header.includedLength, original: header.originalLength),
                               recordIndex: recordIndex, offset: offset)
        }
        guard header.includedLength <= Self.maximumRecordLength else {
            throw BtsnoopError(.recordTooLong(included: header.includedLength, limit: Self.maximumRecordLength),
                               recordIndex: recordIndex, offset: offset)
        }
        let length = Int(header.includedLength)
        guard attempt.remaining >= length else { return nil }
        let data: UnsafeRawBufferPointer
        do throws(ParseError) { data = try attempt.readBytes(length) } catch { return nil }
        let record = BtsnoopRecord(index: recordIndex, offset: offset, header: header, data: data)
        input = attempt
        recordIndex += 1
        offset += BtsnoopRecordHeader.size + length
        return record
    }

    /// Called at end of input with the bytes ``nextPacket(_:)`` could not use: throws the
    /// truncation error they amount to, if any.
    public func finish(unconsumed input: ByteCursor) throws(BtsnoopError) {
        let available = input.remaining
        guard datalink != nil else {
            if available == 0 && offset == 0 {
                throw BtsnoopError(.truncatedFileHeader(available: 0), recordIndex: nil, offset: 0)
            }
            // A short prefix: say "not btsnoop" if it already disagrees with the magic.
            var attempt = input
            do throws(ParseError) { _ = try BtsnoopFileHeader(parsing: &attempt) } catch {
                if error.kind == .invalidValue { throw BtsnoopError(.badMagic, recordIndex: nil, offset: offset) }
            }
            throw BtsnoopError(.truncatedFileHeader(available: available), recordIndex: nil, offset: offset)
        }
        guard available > 0 else { return }
        guard available >= BtsnoopRecordHeader.size else {
            throw BtsnoopError(.truncatedRecordHeader(available: available), recordIndex: recordIndex, offset: offset)
        }
        var peek = input
        let included = (try? { () throws(ParseError) -> UInt32 in
            _ = try peek.readUInt32BE()
            return try peek.readUInt32BE()
        }()) ?? 0
        throw BtsnoopError(.truncatedRecordData(expected: Int(included), available: available - BtsnoopRecordHeader.size),
                           recordIndex: recordIndex, offset: offset)
    }

    private func versionField(_ input: ByteCursor) -> UInt32 {
        var peek = input
        return (try? { () throws(ParseError) -> UInt32 in
            try peek.skip(8)
            return try peek.readUInt32BE()
        }()) ?? 0
    }
}

extension BtsnoopRecordParser {
    public static func systemError(_ call: StaticString, errno: Int32, during parser: Self?) -> BtsnoopError {
        BtsnoopError(.system(call: call, errno: errno), recordIndex: parser?.recordIndex, offset: parser?.offset ?? 0)
    }

    public static func truncatedFileHeader(available: Int) -> BtsnoopError {
        BtsnoopError(.truncatedFileHeader(available: available), recordIndex: nil, offset: 0)
    }

    @inlinable
    public static func traceFileError(_ error: BtsnoopError) -> TraceFileError { .btsnoop(error) }

    /// The record through the datalink's framing.
    @inlinable
    public func traceRecord(of record: BtsnoopRecord?, unwrapper: inout BtsnoopRecordUnwrapper) -> TraceRecord? {
        guard let record, let datalink else { return nil }
        return TraceRecord(record, datalink: datalink)
    }
}

/// btsnoop records are HCI packets already, whose datalink the framer knows: nothing is kept
/// between them and nothing is skipped.
public struct BtsnoopRecordUnwrapper: CapturePacketUnwrapper {
    public init() {}
}

extension BtsnoopRecordParser {
    // Concrete, not the protocol's default: a caller in another module that specialises
    // CaptureFileReader<BtsnoopRecordParser> calls this directly, and a default implementation would be its
    // unspecialised generic body.
    public static func nextTraceRecord(of reader: CaptureFileReader<BtsnoopRecordParser>) throws(BtsnoopError) -> TraceRecord? {
        try reader.readNextTraceRecord()
    }
}
