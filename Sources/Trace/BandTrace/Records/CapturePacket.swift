/// One packet from a pcap or pcapng file as a view into the reader's buffer: no copy, no
/// allocation. `data` is valid until the reader is advanced or destroyed.
public struct CapturePacket {
    /// Zero-based position among the file's packets (tshark's frame number − 1).
    public var index: Int
    /// Byte offset in the file of the block (pcapng) or record header (pcap).
    public var offset: Int
    /// Byte offset in the file of `data`'s first byte.
    public var dataOffset: Int
    /// The packet's interface (pcapng; 0 for pcap).
    public var interfaceID: Int
    public var linkType: CaptureLinkType
    /// Unix microseconds, converted from the interface's resolution (rounded down); 0 for
    /// a pcapng Simple Packet Block, which has no timestamp.
    public var unixMicroseconds: Int64
    /// The bytes the packet had on the wire (≥ `data.count` when the capture cut it).
    public var originalLength: Int
    public var data: UnsafeRawBufferPointer

    @inlinable
    public init(index: Int, offset: Int, dataOffset: Int, interfaceID: Int, linkType: CaptureLinkType,
                unixMicroseconds: Int64, originalLength: Int, data: UnsafeRawBufferPointer) {
        self.index = index
        self.offset = offset
        self.dataOffset = dataOffset
        self.interfaceID = interfaceID
        self.linkType = linkType
        self.unixMicroseconds = unixMicroseconds
        self.originalLength = originalLength
        self.data = data
    }
}
