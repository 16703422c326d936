/// What the wearer is doing, as a scenario schedules it.
public enum ActivityKind: String, Sendable, CaseIterable {
    case sleep
    case desk
    case walk
    case run
    /// The band lies on a table: no motion, no pulse, no contact.
    case notWorn = "not-worn"

    public var isWorn: Bool { self != .notWorn }
}
