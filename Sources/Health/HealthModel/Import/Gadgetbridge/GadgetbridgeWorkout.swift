import FoundationEssentials

/// A row of Gadgetbridge's BASE_ACTIVITY_SUMMARY (START_TIME and END_TIME in Unix
/// milliseconds, ACTIVITY_KIND an `ActivityKind` code) as a workout.
public struct GadgetbridgeWorkout: Sendable, Hashable {
    public var startMilliseconds: Int64
    public var endMilliseconds: Int64
    public var activityKind: Int64
    public var name: String?

    public init(startMilliseconds: Int64, endMilliseconds: Int64, activityKind: Int64, name: String?) {
        self.startMilliseconds = startMilliseconds
        self.endMilliseconds = endMilliseconds
        self.activityKind = activityKind
        self.name = name
    }

    public enum Problem: String, Sendable, Hashable, Comparable {
        case secondTimestamp = "start or end in seconds, not milliseconds"
        case before2000 = "start before 2000"
        case future = "end in the future"
        case endsBeforeStart = "ends before it starts"
        case longerThanAWeek = "longer than a week"

        public static func < (a: Problem, b: Problem) -> Bool { a.rawValue < b.rawValue }
    }

    public func problem(now: Date) -> Problem? {
        // 1e11 ms is March 1973: smaller values are seconds (or unset).
        if startMilliseconds < 100_000_000_000 || endMilliseconds < 100_000_000_000 { return .secondTimestamp }
        if startMilliseconds < 946_684_800_000 { return .before2000 }
        if Double(endMilliseconds) / 1000 > now.timeIntervalSince1970 + 86_400 { return .future }
        if endMilliseconds < startMilliseconds { return .endsBeforeStart }
        if endMilliseconds - startMilliseconds > 7 * 86_400_000 { return .longerThanAWeek }
        return nil
    }

    /// The HealthKit-style activity of Gadgetbridge's `ActivityKind` codes (model/ActivityKind);
    /// kinds without a counterpart are `other`, their code kept in the metadata.
    public var activity: WorkoutActivityType {
        switch activityKind {
        case 0x10, 0x100: return .running  // running, treadmill
        case 0x20: return .walking
        case 0x40, 0x400: return .swimming  // pool, open water
        case 0x80, 0x800: return .cycling  // outdoor, indoor
        case 0x1000: return WorkoutActivityType(rawValue: "elliptical")
        case 0x2000: return WorkoutActivityType(rawValue: "jump-rope")
        case 0x4000: return WorkoutActivityType(rawValue: "yoga")
        case 0x8000: return WorkoutActivityType(rawValue: "soccer")
        case 0x1_0000: return WorkoutActivityType(rawValue: "rowing")
        case 0x2_0000: return WorkoutActivityType(rawValue: "cricket")
        case 0x4_0000: return WorkoutActivityType(rawValue: "basketball")
        case 0x8_0000: return WorkoutActivityType(rawValue: "table-tennis")
        case 0x10_0000: return WorkoutActivityType(rawValue: "badminton")
        case 0x20_0000: return WorkoutActivityType(rawValue: "traditional-strength-training")
        case 0x40_0000: return .hiking
        case 0x80_0000: return WorkoutActivityType(rawValue: "climbing")
        default: return .other
        }
    }

    /// The workout, with an id from the device and start time: importing again finds it stored.
    public func workout(device: GadgetbridgeDevice) -> Workout {
        var hash = StableHash()
        hash.combine("gadgetbridge-workout")
        hash.combine(device.identifier.lowercased())
        hash.combine(UInt64(bitPattern: startMilliseconds))
        var metadata = ["gadgetbridge_activity_kind": String(activityKind)]
        if let name, !name.isEmpty { metadata["name"] = name }
        return Workout(id: UUID(stableHash: hash), activity: activity,
                       start: Date(timeIntervalSince1970: Double(startMilliseconds) / 1000),
                       end: Date(timeIntervalSince1970: Double(endMilliseconds) / 1000),
                       device: device.deviceInfo, metadata: metadata)
    }
}
