/// A day plan that repeats every day, plus the faults a scenario file asks for.
///
/// Built in: `day` (a working day: sleep, a walk to work and back, desk, an evening run, the
/// band off for a shower), and one-activity days `sleep`, `desk`, `walk`, `run`, `not-worn`.
/// Files use the format of ``ScenarioParser``.
public struct Scenario: Sendable, Hashable {
    public var name: String
    /// Sorted by start; the first starts at minute 0.
    public var segments: [ScenarioSegment]
    public var faults: [FaultSpec]

    public init(name: String, segments: [ScenarioSegment], faults: [FaultSpec] = []) {
        precondition(!segments.isEmpty, "a scenario needs at least one segment")
        self.name = name
        var sorted = segments
        sorted.insertionSort { $0.startMinute < $1.startMinute }
        if sorted[0].startMinute != 0 {
            // Before the first listed segment the day continues the last one from the day before.
            var wrap = sorted[sorted.count - 1]
            wrap.startMinute = 0
            sorted.insert(wrap, at: 0)
        }
        self.segments = sorted
        self.faults = faults
    }

    /// The segment in force `minuteOfDay` minutes after local midnight.
    public func segment(atMinute minuteOfDay: Int) -> ScenarioSegment {
        var low = 0, high = segments.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if segments[mid].startMinute <= minuteOfDay { low = mid } else { high = mid - 1 }
        }
        return segments[low]
    }

    public static let builtInNames = ["day", "sleep", "desk", "walk", "run", "not-worn"]

    public static func builtIn(_ name: String) -> Scenario? {
        switch name {
        case "day":
            return day
        case "sleep", "desk", "walk", "run", "not-worn":
            return Scenario(name: name, segments: [ScenarioSegment(startMinute: 0, kind: ActivityKind(rawValue: name)!)])
        default:
            return nil
        }
    }

    /// The working day, built without matching its name: the chip's band (ChipBand) uses it, and
    /// comparing Strings would link the stdlib's Unicode tables (30 KB of flash) into the image.
    public static var day: Scenario {
        Scenario(name: "day", segments: [
            ScenarioSegment(startMinute: 0, kind: .sleep),
            ScenarioSegment(startMinute: 6 * 60 + 45, kind: .desk),
            ScenarioSegment(startMinute: 7 * 60 + 30, kind: .walk),
            ScenarioSegment(startMinute: 7 * 60 + 55, kind: .desk),
            ScenarioSegment(startMinute: 12 * 60 + 15, kind: .walk, cadence: 100),
            ScenarioSegment(startMinute: 12 * 60 + 35, kind: .desk),
            ScenarioSegment(startMinute: 17 * 60 + 30, kind: .walk),
            ScenarioSegment(startMinute: 17 * 60 + 55, kind: .desk),
            ScenarioSegment(startMinute: 18 * 60 + 30, kind: .run),
            ScenarioSegment(startMinute: 19 * 60 + 10, kind: .notWorn),
            ScenarioSegment(startMinute: 19 * 60 + 35, kind: .desk),
            ScenarioSegment(startMinute: 22 * 60 + 45, kind: .sleep),
        ])
    }
}
