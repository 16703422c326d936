#if canImport(Glibc)
import Glibc
#endif

/// A one-line progress bar on stderr for replays that take longer than a second.
///
/// Shown only when stderr is a terminal (or `--progress` forces it), and only once a
/// replay has run for a second, so short replays and pipelines never see it. Redrawn at
/// most ten times a second; ``finish()`` clears the line.
final class ReplayProgress {
    private let enabled: Bool
    private let started = ContinuousClock.now
    private var lastDraw: ContinuousClock.Instant?
    private var drawn = false
    private let unit: String

    init(forced: Bool, unit: String) {
        enabled = forced || isatty(2) == 1
        self.unit = unit
    }

    /// Reports `done` of `total` (total nil: unknown).
    func update(_ done: Int, of total: Int?) {
        guard enabled else { return }
        let now = ContinuousClock.now
        guard now - started >= .seconds(1) else { return }
        if let lastDraw, now - lastDraw < .milliseconds(100) { return }
        lastDraw = now
        let elapsed = Double((now - started) / .milliseconds(1)) / 1000
        var line = "\r"
        if let total, total > 0 {
            let fraction = min(1, Double(done) / Double(total))
            let width = 30
            let filled = Int(fraction * Double(width))
            line += "[" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled) + "] "
            line += "\(Int(fraction * 100))% \(done)/\(total) \(unit)"
        } else {
            line += "\(done) \(unit)"
        }
        line += " " + String(format1(elapsed)) + " s\u{1B}[K"
        write(line)
        drawn = true
    }

    /// Clears the bar, if one was drawn.
    func finish() {
        if drawn { write("\r\u{1B}[K") }
        drawn = false
    }

    private func write(_ text: String) {
        _ = text.withCString { Glibc.write(2, $0, strlen($0)) }
    }

    private func format1(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}
