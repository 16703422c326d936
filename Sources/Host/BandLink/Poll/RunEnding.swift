/// Why a simulator's serve loop ended (`bandsim serve`: the band's `BandRunner` and the standard
/// peers' `PeerRunner`), printed as its last log line. One type for both loops, so the two serve
/// modes end in the same words.
public enum RunEnding: Equatable, Sendable, CustomStringConvertible {
    case signal(Int32)
    /// The stop descriptor became readable (a test's background runner was stopped).
    case stopped
    case connections(Int)
    case duration(Duration)

    public var description: String {
        switch self {
        case .signal(let number): "stopped by signal \(number)"
        case .stopped: "stopped"
        case .connections(let count): "\(count) connection(s) served"
        case .duration(let duration): "simulated \(duration.components.seconds) s"
        }
    }
}
