import BandWire

/// A streaming framer of one capture container (pcapng, pcap): bytes in, packets out, with
/// "need more data" semantics, keeping its own file offset and block or record index.
///
/// ``CaptureFileReader`` and ``CaptureMemoryReader`` drive any framer the same way.
public protocol CapturePacketFramer {
    static var format: CaptureFileError.Format { get }
    /// The longest piece a framer needs whole; a reader's buffer must hold it.
    static var maximumBufferedLength: Int { get }
    init()
    /// Parses what identifies the file (pcap file header, first pcapng Section Header Block).
    /// False when more bytes are needed; nothing is consumed then.
    mutating func parseFileHeader(_ input: inout ByteCursor) throws(CaptureFileError) -> Bool
    /// The next packet, or nil when `input` ends inside something that must be seen whole.
    mutating func nextPacket(_ input: inout ByteCursor) throws(CaptureFileError) -> CapturePacket?
    /// At end of input: the truncation error the unconsumed bytes amount to, if any.
    func finish(unconsumed input: ByteCursor) throws(CaptureFileError)
    /// Where an I/O failure happening now should be reported.
    var errorPlace: (blockIndex: Int?, offset: Int) { get }
}
