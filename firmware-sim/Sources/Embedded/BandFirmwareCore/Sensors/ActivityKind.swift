import BandProtocol

/// What the wearer is doing, as a scenario schedules it.
public enum ActivityKind: String, Sendable, CaseIterable {
    case sleep
    case desk
    case walk
    case run
    /// The band lies on a table: no motion, no pulse, no contact.
    case notWorn = "not-worn"

    public var isWorn: Bool { self != .notWorn }

    /// The session this activity makes the band record (``MinuteRecord/activity``): walks and
    /// runs are sessions; sleep, desk time (its short strolls included) and the band off are not.
    public var sessionActivity: MinuteActivity {
        switch self {
        case .walk: .walking
        case .run: .running
        case .sleep, .desk, .notWorn: .none
        }
    }
}
