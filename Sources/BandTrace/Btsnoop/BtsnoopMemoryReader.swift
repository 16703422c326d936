import BandWire

/// Reads btsnoop records from bytes already in memory (a mapped file, a fuzzer's input,
/// a test vector). Records are views into those bytes, which must outlive the reader.
public struct BtsnoopMemoryReader: BtsnoopRecordSource {
    public let datalink: BtsnoopDatalink
    private var parser = BtsnoopRecordParser()
    private var cursor: ByteCursor

    /// Parses the file header; throws if `bytes` do not start with a supported one.
    public init(bytes: UnsafeRawBufferPointer) throws(BtsnoopError) {
        cursor = ByteCursor(bytes)
        guard try parser.parseFileHeader(&cursor), let datalink = parser.datalink else {
            // finish(unconsumed:) names what is wrong with an incomplete header (and always throws here).
            try parser.finish(unconsumed: cursor)
            throw BtsnoopError(.truncatedFileHeader(available: bytes.count), recordIndex: nil, offset: 0)
        }
        self.datalink = datalink
    }

    public mutating func next() throws(BtsnoopError) -> BtsnoopRecord? {
        if let record = try parser.nextRecord(&cursor) { return record }
        try parser.finish(unconsumed: cursor)
        return nil
    }
}
