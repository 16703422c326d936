/// Anything that yields btsnoop records in file order: a file streamed through a fixed
/// buffer (``BtsnoopFileReader``) or bytes already in memory (``BtsnoopMemoryReader``).
public protocol BtsnoopRecordSource: TraceRecordSource where Failure == BtsnoopError {
    var datalink: BtsnoopDatalink { get }
    /// The next record, or nil at a clean end of file. The record's data is valid until
    /// the next call. After an error every earlier record has been delivered.
    mutating func next() throws(BtsnoopError) -> BtsnoopRecord?
}

extension BtsnoopRecordSource {
    /// The next record through the datalink's framing.
    @inlinable
    public mutating func nextTraceRecord() throws(BtsnoopError) -> TraceRecord? {
        guard let record = try next() else { return nil }
        return TraceRecord(record, datalink: datalink)
    }
}
