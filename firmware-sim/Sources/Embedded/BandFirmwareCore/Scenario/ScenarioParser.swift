/// Reads scenario files: one statement per line, `#` starts a comment.
///
/// ```
/// # A lazy Sunday with a long run and a reboot mid-afternoon.
/// at 00:00 sleep
/// at 09:30 desk
/// at 10:00 run cadence=170 stride=1.2
/// at 11:30 desk
/// fault reboot-at=15h
/// fault drop=0.01
/// ```
///
/// `at HH:MM ACTIVITY [cadence=STEPS_PER_MIN] [stride=METRES]` schedules an activity (sleep,
/// desk, walk, run, not-worn) from that local time of day until the next `at`; the plan
/// repeats every day. `fault SPEC` adds a fault, spelled as for `bandsim serve --fault`
/// (see ``FaultSpec``). Errors name the line and column-free reason (exit 65 in the CLI).
public enum ScenarioParser {
    public struct Failure: Error, Equatable, CustomStringConvertible {
        public var line: Int
        public var reason: String
        public var description: String { "line \(line): \(reason)" }
    }

    public static func parse(_ text: String, name: String) throws(Failure) -> Scenario {
        var segments: [ScenarioSegment] = []
        var faults: [FaultSpec] = []
        var seenStarts: Set<Int> = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let lineNumber = index + 1
            let line = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
            guard let keyword = words.first else { continue }
            switch keyword {
            case "at":
                guard words.count >= 3 else {
                    throw Failure(line: lineNumber, reason: "expected 'at HH:MM ACTIVITY', got '\(line)'")
                }
                guard let minute = parseClock(words[1]) else {
                    throw Failure(line: lineNumber, reason: "'\(words[1])' is not a time of day HH:MM (00:00–23:59)")
                }
                guard let kind = ActivityKind(rawValue: words[2]) else {
                    throw Failure(line: lineNumber, reason: "unknown activity '\(words[2])' (one of \(ActivityKind.allCases.map { $0.rawValue }.joined(separator: ", ")))")
                }
                guard seenStarts.insert(minute).inserted else {
                    throw Failure(line: lineNumber, reason: "a segment already starts at \(words[1])")
                }
                var segment = ScenarioSegment(startMinute: minute, kind: kind)
                for option in words.dropFirst(3) {
                    let parts = option.split(separator: "=", maxSplits: 1).map(String.init)
                    guard parts.count == 2, let value = Double(parts[1]), value.isFinite else {
                        throw Failure(line: lineNumber, reason: "expected NAME=NUMBER, got '\(option)'")
                    }
                    switch parts[0] {
                    case "cadence":
                        guard (0...250).contains(value) else { throw Failure(line: lineNumber, reason: "cadence \(value) is outside 0–250 steps/min") }
                        segment.cadence = value
                    case "stride":
                        guard value > 0, value <= 2.5 else { throw Failure(line: lineNumber, reason: "stride \(value) m is outside (0, 2.5]") }
                        segment.strideMetres = value
                    default:
                        throw Failure(line: lineNumber, reason: "unknown option '\(parts[0])' (cadence, stride)")
                    }
                }
                segments.append(segment)
            case "fault":
                guard words.count == 2 else {
                    throw Failure(line: lineNumber, reason: "expected 'fault SPEC' (e.g. fault reboot-at=2h)")
                }
                do throws(FaultSpec.ParseFailure) {
                    faults.append(try FaultSpec(parsing: words[1]))
                } catch {
                    throw Failure(line: lineNumber, reason: error.reason)
                }
            default:
                throw Failure(line: lineNumber, reason: "unknown statement '\(keyword)' (at, fault)")
            }
        }
        guard !segments.isEmpty else { throw Failure(line: 1, reason: "no 'at HH:MM ACTIVITY' line: the scenario plans nothing") }
        return Scenario(name: name, segments: segments, faults: faults)
    }

    static func parseClock(_ text: String) -> Int? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2,
              let h = Int(parts[0]), let m = Int(parts[1]), (0...23).contains(h), (0...59).contains(m) else { return nil }
        return h * 60 + m
    }
}
