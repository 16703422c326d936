import BandTrace

extension TraceDamage {
    /// The damage a trace file's reader reported, whatever its format.
    init(_ error: TraceFileError) {
        switch error {
        case .btsnoop(let error):
            self.init(error)
        case .capture(let error):
            // CaptureFileError says "<place>: <what>"; keep only the what.
            let text = error.description
            let reason = text.firstRange(of: ": ").map { String(text[$0.upperBound...]) } ?? text
            let kind: Kind = error.isSystemFailure ? .io : error.isTruncation ? .truncatedTail : .framing
            self.init(kind: kind, recordIndex: error.blockIndex, offset: error.offset, reason: reason)
        }
    }
}
