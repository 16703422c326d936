#if canImport(Glibc)
import Glibc
#endif

/// A one-line progress bar on standard error, drawn only when standard error is a terminal
/// (scripts and logs see nothing); redrawn when the whole percent changes.
final class ProgressBar {
    let label: String
    var total: UInt64 = 0
    private let enabled: Bool
    private var lastPercent = -1
    private var drawn = false

    init(label: String) {
        self.label = label
        enabled = isatty(2) == 1
    }

    func update(_ done: UInt64) {
        guard enabled, total > 0 else { return }
        let percent = Int(min(100, done * 100 / total))
        guard percent != lastPercent else { return }
        lastPercent = percent
        let width = 30
        let filled = percent * width / 100
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let megabytes = done >> 20, totalMegabytes = total >> 20
        write("\r\(label) [\(bar)] \(percent)% (\(megabytes) of \(totalMegabytes) MiB)")
        drawn = true
    }

    /// Clears the line; safe to call more than once.
    func finish() {
        guard drawn else { return }
        drawn = false
        write("\r\u{1B}[K")
    }

    private func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes in _ = Glibc.write(2, bytes.baseAddress, bytes.count) }
    }
}
