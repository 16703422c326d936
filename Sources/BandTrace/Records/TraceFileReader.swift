/// A trace file in any format BandKit reads (btsnoop, pcapng, pcap), detected from its magic
/// or forced: the one source `bandsim decode` and `bandsim replay` read.
///
/// A switch over three concrete readers per record (no existential): each case's reader is
/// the specialised fixed-buffer reader of its format.
public final class TraceFileReader: TraceRecordSource {
    private enum Reader {
        case btsnoop(BtsnoopFileReader)
        case pcapng(PcapngFileReader)
        case pcap(PcapFileReader)
    }

    public let format: TraceFileFormat
    private let reader: Reader

    /// Opens `path` as `format`, or as the format its first bytes name when nil.
    public init(path: String, format: TraceFileFormat? = nil) throws(TraceFileError) {
        let format = format ?? TraceFileFormat.detect(path: path) ?? .btsnoop
        self.format = format
        switch format {
        case .btsnoop:
            do throws(BtsnoopError) { reader = .btsnoop(try BtsnoopFileReader(path: path)) } catch { throw .btsnoop(error) }
        case .pcapng:
            do throws(CaptureFileError) { reader = .pcapng(try PcapngFileReader(path: path)) } catch { throw .capture(error) }
        case .pcap:
            do throws(CaptureFileError) { reader = .pcap(try PcapFileReader(path: path)) } catch { throw .capture(error) }
        }
    }

    @inline(__always)
    public func nextTraceRecord() throws(TraceFileError) -> TraceRecord? {
        switch reader {
        case .btsnoop(let reader):
            do throws(BtsnoopError) {
                guard let record = try reader.next() else { return nil }
                return TraceRecord(record, datalink: reader.datalink)
            } catch {
                throw .btsnoop(error)
            }
        case .pcapng(let reader):
            do throws(CaptureFileError) { return try reader.nextTraceRecord() } catch { throw .capture(error) }
        case .pcap(let reader):
            do throws(CaptureFileError) { return try reader.nextTraceRecord() } catch { throw .capture(error) }
        }
    }

    /// Bytes of the file read so far.
    public var bytesRead: Int {
        switch reader {
        case .btsnoop(let reader): return reader.bytesRead
        case .pcapng(let reader): return reader.bytesRead
        case .pcap(let reader): return reader.bytesRead
        }
    }

    /// What the file's packets are: the btsnoop datalink, or the pcap link type(s).
    public var linkDescription: String {
        switch reader {
        case .btsnoop(let reader): return "btsnoop datalink \(reader.datalink)"
        case .pcapng(let reader):
            let types = Set(reader.framer.interfaces.map(\.linkType.rawValue)).sorted()
            return "pcapng link type " + types.map { "\(CaptureLinkType(rawValue: $0))" }.joined(separator: ", ")
        case .pcap(let reader): return "pcap link type \(reader.framer.header.map { "\($0.linkType)" } ?? "?")"
        }
    }

    /// What following the connection of an air capture (link types 256, 272) did, for a note on
    /// stderr; nil for HCI traces.
    public var airCaptureNote: String? {
        let follower: LLConnectionFollower?
        switch reader {
        case .btsnoop: return nil
        case .pcapng(let reader): follower = reader.follower
        case .pcap(let reader): follower = reader.follower
        }
        guard let s = follower?.statistics else { return nil }
        var note = "air capture: directions are as the central sees them (tx = central → peripheral); "
            + "\(s.connections) connections followed, \(s.dataPDUs) data PDUs, \(s.retransmissions) retransmissions and "
            + "\(s.crcFailures) CRC-failed PDUs dropped, \(s.otherAccessAddress) PDUs of other connections skipped"
        if s.encryptedPDUs > 0 {
            note += "; the link is encrypted: \(s.encryptedPDUs) encrypted PDUs were not decoded"
        }
        return note
    }

    /// A note for packets that were skipped because their link type is not an HCI one
    /// (an air capture, say); nil when there were none.
    public var skippedPacketsNote: String? {
        let count: Int, type: CaptureLinkType?
        switch reader {
        case .btsnoop: return nil
        case .pcapng(let reader): (count, type) = (reader.otherLinkTypePackets, reader.firstOtherLinkType)
        case .pcap(let reader): (count, type) = (reader.otherLinkTypePackets, reader.firstOtherLinkType)
        }
        guard count > 0, let type else { return nil }
        return "\(count) packets on link types BandKit does not decode were skipped (first: link type \(type); "
            + "link types 187, 201, 254, 256 and 272 are decoded)"
    }
}

/// Why a trace file could not be read further: the error of its format's reader.
public enum TraceFileError: Error, Hashable, Sendable, CustomStringConvertible {
    case btsnoop(BtsnoopError)
    case capture(CaptureFileError)

    /// The operating system refused (exit 1), rather than the data being bad (exit 65).
    public var isSystemFailure: Bool {
        switch self {
        case .btsnoop(let error): if case .system = error.kind { return true } else { return false }
        case .capture(let error): return error.isSystemFailure
        }
    }

    public var description: String {
        switch self {
        case .btsnoop(let error): return error.description
        case .capture(let error): return error.description
        }
    }
}
