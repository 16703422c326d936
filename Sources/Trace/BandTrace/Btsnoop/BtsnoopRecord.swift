/// One btsnoop record as a view into the reader's buffer: no copy, no allocation.
///
/// `data` is valid only until the reader that produced the record is advanced or
/// destroyed; copy what must outlive that.
public struct BtsnoopRecord {
    /// Zero-based position of the record in the file.
    public var index: Int
    /// Byte offset of the record header in the file.
    public var offset: Int
    public var header: BtsnoopRecordHeader
    /// The `includedLength` bytes of the record.
    public var data: UnsafeRawBufferPointer

    @inlinable
    public init(index: Int, offset: Int, header: BtsnoopRecordHeader, data: UnsafeRawBufferPointer) {
        self.index = index
        self.offset = offset
        self.header = header
        self.data = data
    }

    @inlinable public var flags: UInt32 { header.flags }
    @inlinable public var unixMicroseconds: Int64 { header.unixMicroseconds }
    /// Whether the capture kept fewer bytes than the packet had (snap length).
    @inlinable public var isTruncated: Bool { header.includedLength < header.originalLength }
}
