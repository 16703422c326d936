/// A record source whose failures read as a trace file's (``TraceFileError``): every reader
/// BandKit ships, file or memory, so code generic over the source names damage one way.
public protocol TraceFileRecordSource: TraceRecordSource {
    /// `error` as the trace file's error.
    static func traceFileError(_ error: Failure) -> TraceFileError
}

/// A trace file streamed from disk (or a pipe) by its format's concrete reader: what
/// `bandsim decode` and `bandsim replay` read once ``OpenedTraceFile`` has picked the reader.
///
/// Code generic over this protocol is specialised per reader, so the per-record path is a
/// direct call into one fixed-buffer reader: the format is decided once per file, not per record.
public protocol StreamingTraceFile: TraceFileRecordSource {
    var format: TraceFileFormat { get }
    /// Bytes of the file read so far.
    var bytesRead: Int { get }
    /// What following the connection of an air capture (link types 256, 272) did, for a note on
    /// stderr; nil for HCI traces.
    var airCaptureNote: String? { get }
    /// A note for packets that were skipped because their link type is not an HCI one (an air
    /// capture's other link types, say); nil when there were none.
    var skippedPacketsNote: String? { get }
}

extension CaptureMemoryReader: TraceFileRecordSource {
    @inlinable
    public static func traceFileError(_ error: Framer.Failure) -> TraceFileError { Framer.traceFileError(error) }
}

extension CaptureFileReader: StreamingTraceFile {
    @inlinable
    public static func traceFileError(_ error: Framer.Failure) -> TraceFileError { Framer.traceFileError(error) }

    public var format: TraceFileFormat { Framer.traceFileFormat }
    public var airCaptureNote: String? { unwrapper.airCaptureNote }
    public var skippedPacketsNote: String? { unwrapper.skippedPacketsNote }
}

extension CaptureHCIUnwrapper: CapturePacketUnwrapper {
    public var airCaptureNote: String? {
        guard sawAirPackets else { return nil }
        let s = follower.statistics
        var note = "air capture: directions are as the central sees them (tx = central → peripheral); "
            + "\(s.connections) connections followed, \(s.dataPDUs) data PDUs, \(s.retransmissions) retransmissions and "
            + "\(s.crcFailures) CRC-failed PDUs dropped, \(s.crcFailedKept) CRC-failed PDUs kept (the peer acknowledged them; marked crc_failed), "
            + "\(s.otherAccessAddress) PDUs of other connections skipped"
        if s.encryptedPDUs > 0 {
            note += "; the link is encrypted: \(s.encryptedPDUs) encrypted PDUs were not decoded"
        }
        return note
    }

    public var skippedPacketsNote: String? {
        guard otherLinkTypePackets > 0, let type = firstOtherLinkType else { return nil }
        return "\(otherLinkTypePackets) packets on link types BandKit does not decode were skipped (first: link type \(type); "
            + "link types 187, 201, 254, 256 and 272 are decoded)"
    }
}
