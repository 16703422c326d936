import BandWire

/// A streaming framer of one trace container (btsnoop, pcapng, pcap): bytes in, packets out,
/// with "need more data" semantics, keeping its own file offset and record or block index.
///
/// One decoder protocol, one driver (as swift-nio's `ByteToMessageDecoder` and its handler):
/// ``CaptureFileReader`` streams any framer through a fixed buffer and ``CaptureMemoryReader``
/// reads one over bytes in memory, the same way for every format. Each framer keeps its own
/// packet and error types, so a btsnoop file's records and errors stay btsnoop's.
public protocol CapturePacketFramer {
    /// One framed packet, a view into the bytes the framer was given.
    associatedtype Packet
    /// Why the file cannot be read further, where in the file.
    associatedtype Failure: Error
    /// The state that turns packets into trace records (HCI unwrapping, air-capture following).
    associatedtype Unwrapper: CapturePacketUnwrapper

    static var traceFileFormat: TraceFileFormat { get }
    /// The longest piece a framer needs whole; a reader's buffer must hold it.
    static var maximumBufferedLength: Int { get }
    init()
    /// Parses what identifies the file (btsnoop or pcap file header, first pcapng Section Header
    /// Block). False when more bytes are needed.
    mutating func parseFileHeader(_ input: inout ByteCursor) throws(Failure) -> Bool
    /// The next packet, or nil when `input` ends inside something that must be seen whole.
    mutating func nextPacket(_ input: inout ByteCursor) throws(Failure) -> Packet?
    /// At end of input: the truncation error the unconsumed bytes amount to, if any.
    func finish(unconsumed input: ByteCursor) throws(Failure)
    /// The error of a failed system call (open, read): at the place `framer` has reached, or
    /// at the file's start, outside any record, when there is no framer yet.
    static func systemError(_ call: StaticString, errno: Int32, during framer: Self?) -> Failure
    /// A file of `available` bytes that ends inside its header (when ``finish(unconsumed:)``
    /// did not say more).
    static func truncatedFileHeader(available: Int) -> Failure
    /// `error` as a trace file's error.
    static func traceFileError(_ error: Failure) -> TraceFileError
    /// The trace record of the reader's next `packet` (nil: the file ended).
    func traceRecord(of packet: Packet?, unwrapper: inout Unwrapper) -> TraceRecord?
    /// `reader`'s next record, read by code specialised for this framer. Leave it to the default
    /// implementation: it exists so that a caller generic over its record source (such as
    /// ``TraceDecoder/decodeAll(into:)`` called from another module) reaches specialised code
    /// through one witness call per record. Without it that caller runs ``CaptureFileReader``'s
    /// unspecialised body, which looks up generic metadata and calls the framer through its
    /// witness table at every step: `bandsim decode` of a pcapng file cost 1.3× its CPU.
    static func nextTraceRecord(of reader: CaptureFileReader<Self>) throws(Failure) -> TraceRecord?
}

extension CapturePacketFramer {
    // The witness of each concrete framer's conformance is this body with `Self` known, which
    // the optimiser specialises (reader, stream and framer calls direct).
    public static func nextTraceRecord(of reader: CaptureFileReader<Self>) throws(Failure) -> TraceRecord? {
        try reader.readNextTraceRecord()
    }
}

/// What a reader keeps beside its framer to turn packets into trace records, and what it has
/// to say about the packets when the file is done.
public protocol CapturePacketUnwrapper {
    init()
    /// A record held back by the previous packet, which the reader returns before reading on.
    mutating func takeDeferredRecord() -> TraceRecord?
    /// What following the connection of an air capture did; nil for HCI traces.
    var airCaptureNote: String? { get }
    /// A note for packets skipped because their link type is not an HCI one; nil when none were.
    var skippedPacketsNote: String? { get }
}

extension CapturePacketUnwrapper {
    @inlinable public mutating func takeDeferredRecord() -> TraceRecord? { nil }
    public var airCaptureNote: String? { nil }
    public var skippedPacketsNote: String? { nil }
}

/// pcapng and pcap: Bluetooth link types unwrapped by ``CaptureHCIUnwrapper``, errors as
/// ``CaptureFileError``.
public protocol CaptureContainerFramer: CapturePacketFramer
where Packet == CapturePacket, Failure == CaptureFileError, Unwrapper == CaptureHCIUnwrapper {
    static var format: CaptureFileError.Format { get }
    /// Where an I/O failure happening now should be reported.
    var errorPlace: (blockIndex: Int?, offset: Int) { get }
}

extension CaptureContainerFramer {
    public static var traceFileFormat: TraceFileFormat {
        switch format {
        case .pcapng: return .pcapng
        case .pcap: return .pcap
        }
    }

    public static func systemError(_ call: StaticString, errno: Int32, during framer: Self?) -> CaptureFileError {
        let place = framer?.errorPlace ?? (blockIndex: nil, offset: 0)
        return CaptureFileError(format, .system(call: call.description, errno: errno), blockIndex: place.blockIndex, offset: place.offset)
    }

    public static func truncatedFileHeader(available: Int) -> CaptureFileError {
        CaptureFileError(format, .truncatedFileHeader(available: available), blockIndex: nil, offset: 0)
    }

    @inlinable
    public static func traceFileError(_ error: CaptureFileError) -> TraceFileError { .capture(error) }

    @inlinable
    public func traceRecord(of packet: CapturePacket?, unwrapper: inout CaptureHCIUnwrapper) -> TraceRecord? {
        unwrapper.nextRecord(packet)
    }
}
