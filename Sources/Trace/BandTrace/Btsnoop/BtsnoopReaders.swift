/// Streams a btsnoop file through one fixed buffer (``CaptureFileReader`` driving
/// ``BtsnoopRecordParser``): memory stays the same whatever the file's size, and records are
/// views into the buffer (no copy, no allocation per record).
///
/// ```swift
/// let reader = try BtsnoopFileReader(path: "btsnoop_hci.log")
/// while let record = try reader.next() { … record.data … }
/// ```
public typealias BtsnoopFileReader = CaptureFileReader<BtsnoopRecordParser>

/// Reads btsnoop records from bytes already in memory (a mapped file, a fuzzer's input,
/// a test vector). Records are views into those bytes, which must outlive the reader.
public typealias BtsnoopMemoryReader = CaptureMemoryReader<BtsnoopRecordParser>

extension CaptureFileReader where Framer == BtsnoopRecordParser {
    /// The file's datalink (its header has been read when the reader exists).
    public var datalink: BtsnoopDatalink { framer.datalink! }

    /// The next record; its data is valid until the next call. After an error every earlier
    /// record has been delivered.
    @inlinable
    public func next() throws(BtsnoopError) -> BtsnoopRecord? { try nextPacket() }
}

extension CaptureMemoryReader where Framer == BtsnoopRecordParser {
    /// The file's datalink (its header has been read when the reader exists).
    public var datalink: BtsnoopDatalink { framer.datalink! }

    /// The next record; its data is valid until the next call.
    @inlinable
    public mutating func next() throws(BtsnoopError) -> BtsnoopRecord? { try nextPacket() }
}
