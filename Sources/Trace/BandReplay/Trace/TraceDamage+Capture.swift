import BandTrace

extension TraceDamage {
    /// The damage a trace file's reader reported, whatever its format.
    public init(_ error: TraceFileError) {
        switch error {
        case .btsnoop(let error):
            self.init(error)
        case .capture(let error):
            // CaptureFileError says "<place>: <what>"; keep the what. A pcapng block index is not a
            // record index (section headers and interfaces are blocks too): named in the reason.
            let text = error.description
            var reason = text.firstRange(of: ": ").map { String(text[$0.upperBound...]) } ?? text
            if let block = error.blockIndex {
                reason = "\(error.format) \(error.format == .pcapng ? "block" : "record") \(block): " + reason
            }
            let kind: Kind = error.isSystemFailure ? .io : error.isTruncation ? .truncatedTail : .framing
            self.init(kind: kind, recordIndex: nil, offset: error.offset, reason: reason)
        }
    }
}
