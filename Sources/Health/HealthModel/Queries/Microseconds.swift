import FoundationEssentials

/// Instants are stored as integer microseconds since 1970-01-01 UTC: exact, ordered, and cheap to
/// compare. These convert at the API edge.
extension Date {
    public var microsecondsSince1970: Int64 {
        Int64((timeIntervalSince1970 * 1_000_000).rounded())
    }

    public init(microsecondsSince1970 value: Int64) {
        self.init(timeIntervalSince1970: Double(value) / 1_000_000)
    }
}
