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
