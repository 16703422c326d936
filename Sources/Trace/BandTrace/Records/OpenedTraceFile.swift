/// A trace file in any format BandKit reads (btsnoop, pcapng, pcap), opened with the concrete
/// reader its magic names (or the forced format): what `bandsim decode` and `bandsim replay`
/// start from.
///
/// The format is decided here, once per file. Callers switch over the three cases and hand the
/// reader to one generic function (``StreamingTraceFile``), which the compiler specialises per
/// reader: the per-record path has no switch and no existential. (A reader that switched over
/// the three formats on every record cost `bandsim decode` ~20 % of its CPU.)
///
/// ```swift
/// switch try OpenedTraceFile(path: path) {
/// case .btsnoop(let reader): decode(TraceDecoder(source: reader))
/// case .pcapng(let reader): decode(TraceDecoder(source: reader))
/// case .pcap(let reader): decode(TraceDecoder(source: reader))
/// }
/// ```
public enum OpenedTraceFile {
    case btsnoop(BtsnoopFileReader)
    case pcapng(PcapngFileReader)
    case pcap(PcapFileReader)

    /// Opens `path` as `format`, or as the format its first bytes name when nil (btsnoop when
    /// none matches, so the error names what a btsnoop file lacks), and reads its header.
    public init(path: String, format: TraceFileFormat? = nil) throws(TraceFileError) {
        switch format ?? TraceFileFormat.detect(path: path) ?? .btsnoop {
        case .btsnoop:
            do throws(BtsnoopError) { self = .btsnoop(try BtsnoopFileReader(path: path)) } catch { throw .btsnoop(error) }
        case .pcapng:
            do throws(CaptureFileError) { self = .pcapng(try PcapngFileReader(path: path)) } catch { throw .capture(error) }
        case .pcap:
            do throws(CaptureFileError) { self = .pcap(try PcapFileReader(path: path)) } catch { throw .capture(error) }
        }
    }

    public var format: TraceFileFormat {
        switch self {
        case .btsnoop: return .btsnoop
        case .pcapng: return .pcapng
        case .pcap: return .pcap
        }
    }
}
