/// One fault the simulated band should suffer, from `--fault SPEC` or a scenario's `fault SPEC`.
///
/// | spec | effect |
/// |---|---|
/// | `disconnect-mid-history` | once, drop the connection halfway through the first history transfer of ≥ 2 packets |
/// | `disconnect-at=DURATION` | drop the connection when the band has run DURATION (simulated) |
/// | `disconnect-random=P` | after each PDU the band sends, drop the connection with probability P |
/// | `reboot-at=DURATION` | reboot after DURATION of simulated run time (repeatable): counters reset, boot epoch +1, minute in progress lost, flash kept, connection dropped |
/// | `drop=P` | lose each notification with probability P (it counts as sent: packet numbers skip) |
/// | `corrupt=P` | flip one bit in each notification's value with probability P |
/// | `clock-drift=PPM` | the band's clock runs PPM parts per million fast (negative: slow) |
/// | `battery=PERCENT` | start with this battery level (low battery: ≤ 15 % notifies, ≤ 5 % stops heart-rate measurement) |
///
/// DURATION is a number with a unit `s`, `m`, `h` or `d` (`90s`, `15m`, `2h`, `1d`).
public enum FaultSpec: Sendable, Hashable, CustomStringConvertible {
    case disconnectMidHistory
    case disconnectAt(Duration)
    case disconnectRandom(Double)
    case rebootAt(Duration)
    case drop(Double)
    case corrupt(Double)
    case clockDrift(Double)
    case battery(Int)

    public struct ParseFailure: Error, Equatable {
        public var reason: String
    }

    public init(parsing text: String) throws(ParseFailure) {
        let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
        let name = parts[0]
        let value = parts.count == 2 ? parts[1] : nil
        func need() throws(ParseFailure) -> String {
            guard let value, !value.isEmpty else { throw ParseFailure(reason: "fault '\(name)' needs a value: \(name)=…") }
            return value
        }
        func probability() throws(ParseFailure) -> Double {
            let raw = try need()
            guard let p = Double(raw), p >= 0, p <= 1 else { throw ParseFailure(reason: "\(name)=\(raw): expected a probability between 0 and 1") }
            return p
        }
        func duration() throws(ParseFailure) -> Duration {
            let raw = try need()
            guard let d = FaultSpec.parseDuration(raw) else { throw ParseFailure(reason: "\(name)=\(raw): expected a duration such as 90s, 15m, 2h, 1d") }
            return d
        }
        switch name {
        case "disconnect-mid-history":
            guard value == nil else { throw ParseFailure(reason: "fault 'disconnect-mid-history' takes no value") }
            self = .disconnectMidHistory
        case "disconnect-at": self = .disconnectAt(try duration())
        case "disconnect-random": self = .disconnectRandom(try probability())
        case "reboot-at": self = .rebootAt(try duration())
        case "drop": self = .drop(try probability())
        case "corrupt": self = .corrupt(try probability())
        case "clock-drift":
            let raw = try need()
            guard let ppm = Double(raw.hasSuffix("ppm") ? String(raw.dropLast(3)) : raw), abs(ppm) <= 100_000 else {
                throw ParseFailure(reason: "clock-drift=\(raw): expected parts per million, e.g. 50 or -20ppm")
            }
            self = .clockDrift(ppm)
        case "battery":
            let raw = try need()
            guard let percent = Int(raw.hasSuffix("%") ? String(raw.dropLast()) : raw), (0...100).contains(percent) else {
                throw ParseFailure(reason: "battery=\(raw): expected a percentage 0–100")
            }
            self = .battery(percent)
        default:
            throw ParseFailure(reason: "unknown fault '\(name)' (disconnect-mid-history, disconnect-at, disconnect-random, reboot-at, drop, corrupt, clock-drift, battery)")
        }
    }

    /// `90s`, `15m`, `2h`, `1d`, `1.5h`.
    public static func parseDuration(_ text: String) -> Duration? {
        guard let unit = text.last, let number = Double(text.dropLast()), number >= 0, number.isFinite else { return nil }
        let seconds: Double
        switch unit {
        case "s": seconds = number
        case "m": seconds = number * 60
        case "h": seconds = number * 3600
        case "d": seconds = number * 86_400
        default: return nil
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    public var description: String {
        switch self {
        case .disconnectMidHistory: "disconnect-mid-history"
        case .disconnectAt(let d): "disconnect-at=\(d.wholeMilliseconds / 1000)s"
        case .disconnectRandom(let p): "disconnect-random=\(p)"
        case .rebootAt(let d): "reboot-at=\(d.wholeMilliseconds / 1000)s"
        case .drop(let p): "drop=\(p)"
        case .corrupt(let p): "corrupt=\(p)"
        case .clockDrift(let ppm): "clock-drift=\(ppm)"
        case .battery(let percent): "battery=\(percent)"
        }
    }
}
