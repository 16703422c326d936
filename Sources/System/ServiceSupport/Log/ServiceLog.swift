#if canImport(Glibc)
import Glibc
#endif
import BandKitSystem
import JSONOutput

/// A log line's severity: the syslog priorities journald reads from a `<N>` prefix (sd-daemon(3)).
public enum LogLevel: Int32, Comparable, Sendable, CaseIterable {
    case error = 3, warning = 4, notice = 5, info = 6, debug = 7

    /// `error`, `warning`, `notice`, `info`, `debug`.
    public var name: String {
        switch self {
        case .error: "error"
        case .warning: "warning"
        case .notice: "notice"
        case .info: "info"
        case .debug: "debug"
        }
    }

    /// The level named `name` (as above), for `--log-level`.
    public init?(name: String) {
        guard let level = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = level
    }

    /// More severe is smaller, as in syslog: `.error < .info`.
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A field's value in a log line.
public enum LogValue: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral {
    case text(String)
    case integer(Int64)
    case number(Double)
    case flag(Bool)

    public init(stringLiteral value: String) { self = .text(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .flag(value) }
}

/// One line per event on standard error, in one of two forms:
///
/// - text (the default): `<6>connected device=c0:ff:ee:00:00:01 rssi=-61 name="Band 2"` — the
///   sd-daemon priority prefix journald turns into the entry's priority (shown as it is on a
///   terminal), the message, then `key=value` fields; a value with a space, `"`, `=` or nothing is
///   quoted; control characters are escaped (`\n`, `\x1b`…), so an event is always one line and no
///   terminal escape gets through. Outside the journal (`JOURNAL_STREAM` does not name standard
///   error) a UTC time follows the prefix, since nothing else stamps the line.
/// - JSON (`--json`): one object per line through JSONOutput, so every line parses:
///   `{"time":"2026-12-07T10:00:00.123Z","level":"info","priority":6,"message":"connected","device":"…"}`
///   (a field named like one of the first four gets a `_` in front, so no key appears twice).
///
/// The message and text values are cut to ``maximumValueBytes`` bytes (with `…`): a line's length is bounded
/// whatever a device reports. Each line is one `write`, so lines from one process never interleave.
public final class ServiceLog {
    /// The line format.
    public enum Format: Sendable {
        case text, json
    }

    public let format: Format
    /// Lines below this severity (larger priority numbers) are not written.
    public var minimumLevel: LogLevel
    /// Whether text lines carry a time (JSON lines always do).
    public let timestamps: Bool
    private let write: ([UInt8]) -> Void
    private let clock: () -> timespec

    /// Longest message or text value in bytes of UTF-8.
    public static let maximumValueBytes = 1024

    /// `timestamps` nil: text lines carry a time unless standard error is the journal.
    /// `write` receives each whole line, newline included (standard error by default).
    public init(format: Format = .text, minimumLevel: LogLevel = .info, timestamps: Bool? = nil,
                write: @escaping ([UInt8]) -> Void = ServiceLog.writeToStandardError,
                clock: @escaping () -> timespec = ServiceLog.realTime) {
        self.format = format
        self.minimumLevel = minimumLevel
        self.timestamps = timestamps ?? !Self.standardErrorIsJournal()
        self.write = write
        self.clock = clock
    }

    public func error(_ message: String, _ fields: KeyValuePairs<String, LogValue> = [:]) { log(.error, message, fields) }
    public func warning(_ message: String, _ fields: KeyValuePairs<String, LogValue> = [:]) { log(.warning, message, fields) }
    public func notice(_ message: String, _ fields: KeyValuePairs<String, LogValue> = [:]) { log(.notice, message, fields) }
    public func info(_ message: String, _ fields: KeyValuePairs<String, LogValue> = [:]) { log(.info, message, fields) }
    public func debug(_ message: String, _ fields: KeyValuePairs<String, LogValue> = [:]) { log(.debug, message, fields) }

    /// Writes one line for `message` (what happened: `connected`, `store unreachable`) at `level`, if the level is logged.
    public func log(_ level: LogLevel, _ message: String, _ fields: KeyValuePairs<String, LogValue> = [:]) {
        guard level <= minimumLevel else { return }
        write(line(level, message, Array(fields)))
    }

    /// The line ``log(_:_:_:)`` writes, newline included.
    public func line(_ level: LogLevel, _ message: String, _ fields: [(key: String, value: LogValue)]) -> [UInt8] {
        switch format {
        case .text: textLine(level, message, fields)
        case .json: jsonLine(level, message, fields)
        }
    }

    private func textLine(_ level: LogLevel, _ message: String, _ fields: [(key: String, value: LogValue)]) -> [UInt8] {
        var out = "<\(level.rawValue)>"
        if timestamps { out += Self.utcTime(clock()) + " " }
        out += TerminalText.escaped(Self.bounded(message))
        for (key, value) in fields {
            out += " " + Self.fieldKey(key) + "="
            switch value {
            case .text(let text):
                let escaped = TerminalText.escaped(Self.bounded(text), quotes: true)
                let bare = !escaped.isEmpty && !escaped.utf8.contains { $0 == 0x20 || $0 == 0x3D || $0 == 0x22 || $0 == 0x5C }
                out += bare ? escaped : "\"" + escaped + "\""
            case .integer(let number): out += String(number)
            case .number(let number): out += number.isFinite ? (number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)) : "null"
            case .flag(let flag): out += flag ? "true" : "false"
            }
        }
        return Array((out + "\n").utf8)
    }

    private func jsonLine(_ level: LogLevel, _ message: String, _ fields: [(key: String, value: LogValue)]) -> [UInt8] {
        var json = JSONWriter(sink: JSONBuffer(capacity: 128))
        json.beginObject()
        json.key("time"); json.value(Self.utcTime(clock()))
        json.key("level"); json.value(level.name)
        json.key("priority"); json.value(Int(level.rawValue))
        json.key("message"); json.value(Self.bounded(message))
        for (key, value) in fields {
            // A field may not shadow the line's own keys: `level` becomes `_level`.
            json.key(escaping: Self.reservedJSONKeys.contains(key) ? "_" + key : Self.bounded(key))
            switch value {
            case .text(let text): json.value(Self.bounded(text))
            case .integer(let number): json.value(number)
            case .number(let number): json.value(number)
            case .flag(let flag): json.value(flag)
            }
        }
        json.endObject()
        return json.sink.bytes + [0x0A]
    }

    static let reservedJSONKeys: Set<String> = ["time", "level", "priority", "message"]

    static func bounded(_ text: String) -> String { TerminalText.truncated(text, maximumBytes: maximumValueBytes) }

    /// A key as written in a text line: letters, digits, `_`, `-`, `.`; anything else as `_`.
    static func fieldKey(_ key: String) -> String {
        let cleaned = String(decoding: bounded(key).utf8.map { byte -> UInt8 in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."): byte
            default: UInt8(ascii: "_")
            }
        }, as: UTF8.self)
        return cleaned.isEmpty ? "_" : cleaned
    }

    /// `2026-12-07T10:00:00.123Z`.
    static func utcTime(_ time: timespec) -> String {
        var seconds = time.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(time.tv_nsec / 1_000_000), 3))Z"
    }

    /// The wall clock (`CLOCK_REALTIME`).
    public static func realTime() -> timespec {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return now
    }

    /// Writes `line` to standard error in one call (a short write, which a pipe makes rare, continues).
    public static func writeToStandardError(_ line: [UInt8]) {
        _ = line.withUnsafeBytes { SystemCalls.live.writeAll(2, $0) }
    }

    /// Whether standard error is a journald stream: `JOURNAL_STREAM` (`DEVICE:INODE`, set by
    /// systemd) names it, as sd_journal_stream_fd(3) advises checking.
    public static func standardErrorIsJournal(environment: [String: String] = ProcessEnvironment.current()) -> Bool {
        guard let stream = environment["JOURNAL_STREAM"] else { return false }
        let parts = stream.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var status = stat()
        guard fstat(2, &status) == 0 else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }
}
