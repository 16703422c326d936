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
    /// `reader`'s next record, read by code specialised for this framer. Leave it to the default
    /// implementation: it exists so that a caller generic over its record source (such as
    /// ``TraceDecoder/decodeAll(into:)`` called from another module) reaches specialised code
    /// through one witness call per record. Without it that caller runs ``CaptureFileReader``'s
    /// unspecialised body, which looks up generic metadata and calls the framer through its
    /// witness table at every step: `bandsim decode` of a pcapng file cost 1.3× its CPU.
    static func nextTraceRecord(of reader: CaptureFileReader<Self>) throws(CaptureFileError) -> TraceRecord?
}

extension CapturePacketFramer {
    // The witness of each concrete framer's conformance is this body with `Self` known, which
    // the optimiser specialises (reader, stream and framer calls direct).
    public static func nextTraceRecord(of reader: CaptureFileReader<Self>) throws(CaptureFileError) -> TraceRecord? {
        try reader.readNextTraceRecord()
    }
}
