import BandReader
import CommandKit
import FoundationEssentials
import HealthModel
#if canImport(Glibc)
import Glibc
#endif

/// Prints reader events: one line per live reading for people (status on stderr), or NDJSON on
/// stdout with `--json` (every event, one object per line, `"event"` naming it).
final class EventPrinter {
    let json: Bool
    /// Whether live readings are printed (stream) or only progress (sync, pair).
    let showReadings: Bool
    private var lastProgress: ContinuousClock.Instant?
    private var lastPrintedSteps: UInt32?

    init(json: Bool, showReadings: Bool) {
        self.json = json
        self.showReadings = showReadings
    }

    func handle(_ event: ReaderEvent) {
        if json { printJSON(event) } else { printText(event) }
    }

    // MARK: Text

    private func status(_ line: String) { CommandRunner.printError(line) }

    private func printText(_ event: ReaderEvent) {
        switch event {
        case .connecting(let address, let attempt):
            status(attempt == 1 ? "connecting to \(address.terminalEscaped)…" : "connecting to \(address.terminalEscaped) (attempt \(attempt))…")
        case .connected(let mtu, let kind):
            status("connected (ATT MTU \(mtu)); \(kind.description)")
        case .paired(let readerID):
            status("paired; this reader is \(String(readerID, radix: 16)) on the band")
        case .authenticated:
            status("authenticated")
        case .clockSet(let setting):
            let minutes = setting.utcOffsetSeconds / 60
            status("band clock set to \(setting.year)-\(two(setting.month))-\(two(setting.day)) \(two(setting.hours)):\(two(setting.minutes)):\(two(setting.seconds)) UTC\(minutes < 0 ? "-" : "+")\(two(abs(minutes) / 60)):\(two(abs(minutes) % 60))")
        case .clockChecked(let offset):
            if let offset { status(offset == 0 ? "band clock is right" : "band clock is \(abs(offset)) s \(offset > 0 ? "ahead of" : "behind") the host; left as is") }
        case .device(let device, let battery):
            let name = [device.name, device.manufacturer, device.model].compactMap { $0 }.joined(separator: ", ").terminalEscaped
            status("device: \(name.isEmpty ? "unnamed" : name)\(device.serialNumber.map { ", serial \($0.terminalEscaped)" } ?? "")\(battery.map { ", battery \($0)%" } ?? "")")
        case .historyTransferStarted(let first, let count, let gap):
            if count > 0 { status("history: fetching \(count) minutes from record \(first)") }
            if gap > 0 { status("history: \(gap) minutes asked for no longer exist on the band") }
        case .historyProgress(let received, let total):
            let now = ContinuousClock.now
            if received == total || lastProgress.map({ now - $0 > .milliseconds(500) }) ?? true {
                lastProgress = now
                status("history: \(received)/\(total) minutes received")
            }
        case .historyCommitted(let minutes, let cursor, let acknowledged):
            if minutes > 0 { status("history: \(minutes) minutes stored, cursor \(cursor.nextSequence)\(acknowledged ? ", acknowledged" : "")") }
        case .historyDiscarded(let why):
            status("history: transfer discarded, fetching again: \(why)")
        case .historyComplete(let minutes):
            status("history: up to date (\(minutes) minutes this sync)")
        case .streaming:
            status("streaming live readings (Ctrl-C stops)")
        case .reading(let reading):
            // One line per heart-rate measurement, and per step-count change; cadence and battery
            // updates show on the next line.
            guard showReadings else { return }
            let stepsChanged = reading.kind == "activity" && reading.stepsToday != lastPrintedSteps
            guard reading.kind == "hr" || stepsChanged else { return }
            lastPrintedSteps = reading.stepsToday
            var fields = [localTimestamp(reading.time)]
            fields.append("HR " + (reading.heartRate.map { padded(String($0), width: 3) } ?? "  –") + " bpm"
                          + (reading.sensorContact == false ? " (no contact, not stored)" : ""))
            if !reading.rrMilliseconds.isEmpty {
                fields.append("RR " + reading.rrMilliseconds.map { String(Int($0.rounded())) }.joined(separator: ",") + " ms")
            }
            fields.append("steps " + (reading.stepsToday.map(String.init) ?? "–"))
            fields.append("cadence " + (reading.cadence.map { "\($0)/min" } ?? "–"))
            fields.append("battery " + (reading.batteryPercent.map { "\($0)%" } ?? "–"))
            // The sensor's running total, resting metabolism included, in the unit the store's
            // active energy is shown in; not the minute's active energy (movement only).
            if let energy = reading.energyExpendedKilojoules {
                fields.append("energy \(Int((Double(energy) / 4.184).rounded())) kcal since sensor reset")
            }
            writeLine(fields.joined(separator: "  "))
        case .liveMinutesStored:
            break
        case .anomaly(let what):
            status("warning: \(what)")
        case .disconnected(let why):
            status("disconnected: \(why)")
        case .reconnecting(let delay):
            status("reconnecting in \(describe(delay))")
        case .stopped:
            status("stopped")
        case .storeUnavailable(let outage):
            let minutes = outage.spooledMinutes == 1 ? "1 minute" : "\(outage.spooledMinutes) minutes"
            var line = "store unreachable, \(minutes) spooled"
            if outage.droppedMinutes > 0 { line += ", \(outage.droppedMinutes) not kept (spool full)" }
            if outage.historyDeferred { line += ", history left on the band" }
            status(line + "; retrying in \(describe(outage.retryIn)): \(outage.reason.terminalEscaped)")
        case .storeAvailable(let replayed):
            status(replayed == 0 ? "store reachable again" : "store reachable again, \(replayed) spooled minute\(replayed == 1 ? "" : "s") written")
        case .storeWrite:
            break   // a timing for benches: --json only
        }
    }

    private func two(_ value: some BinaryInteger) -> String { value < 10 ? "0\(value)" : "\(value)" }

    private func padded(_ text: String, width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }

    /// `2026-11-30 08:15:00` in the host's local time (TZ, /etc/localtime), as `date(1)` shows it.
    private func localTimestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var local = tm()
        localtime_r(&seconds, &local)
        return "\(local.tm_year + 1900)-\(two(local.tm_mon + 1))-\(two(local.tm_mday)) \(two(local.tm_hour)):\(two(local.tm_min)):\(two(local.tm_sec))"
    }

    /// `2s`, `750ms`, `1s 500ms`.
    private func describe(_ delay: Duration) -> String {
        let (seconds, attoseconds) = delay.components
        let milliseconds = attoseconds / 1_000_000_000_000_000
        if milliseconds == 0 { return "\(seconds)s" }
        return seconds == 0 ? "\(milliseconds)ms" : "\(seconds)s \(milliseconds)ms"
    }

    // MARK: JSON

    private func printJSON(_ event: ReaderEvent) {
        var object: [(String, JSONValue)] = []
        switch event {
        case .connecting(let address, let attempt):
            object = [("event", "connecting"), ("address", .string(address)), ("attempt", .int(attempt))]
        case .connected(let mtu, let kind):
            // "band" stays for older consumers: true only for a BandKit band.
            object = [("event", "connected"), ("mtu", .int(mtu)), ("kind", .string(kind.rawValue)), ("band", .bool(kind == .bandkit))]
        case .paired(let readerID):
            object = [("event", "paired"), ("reader_id", .string(String(readerID, radix: 16)))]
        case .authenticated:
            object = [("event", "authenticated")]
        case .clockSet(let setting):
            object = [("event", "clock_set"), ("utc_offset_s", .int(setting.utcOffsetSeconds)),
                      ("time_zone_quarter_hours", .int(Int(setting.timeZoneQuarterHours))), ("dst_code", .int(Int(setting.dstOffsetCode)))]
        case .clockChecked(let offset):
            object = [("event", "clock_checked"), ("band_ahead_s", offset.map { .int($0) } ?? .null)]
        case .device(let device, let battery):
            object = [("event", "device"), ("name", .optional(device.name)), ("manufacturer", .optional(device.manufacturer)),
                      ("model", .optional(device.model)), ("serial", .optional(device.serialNumber)),
                      ("firmware", .optional(device.firmwareRevision)), ("battery", battery.map { .int($0) } ?? .null)]
        case .historyTransferStarted(let first, let count, let gap):
            object = [("event", "history_transfer"), ("first", .int(Int(first))), ("count", .int(Int(count))), ("gap", .int(Int(gap)))]
        case .historyProgress(let received, let total):
            object = [("event", "history_progress"), ("received", .int(received)), ("total", .int(total))]
        case .historyCommitted(let minutes, let cursor, let acknowledged):
            object = [("event", "history_committed"), ("minutes", .int(minutes)), ("cursor", .int(Int(cursor.nextSequence))),
                      ("history_id", .string(String(cursor.historyID, radix: 16))), ("acknowledged", .bool(acknowledged))]
        case .historyDiscarded(let why):
            object = [("event", "history_discarded"), ("reason", .string(why))]
        case .historyComplete(let minutes):
            object = [("event", "history_complete"), ("minutes", .int(minutes))]
        case .streaming:
            object = [("event", "streaming")]
        case .reading(let reading):
            guard showReadings else { return }
            object = [("event", "reading"), ("time", .string(utcTimestamp(reading.time))), ("kind", .string(reading.kind)),
                      ("heart_rate", reading.heartRate.map { .int($0) } ?? .null),
                      ("rr_ms", .array(reading.rrMilliseconds.map { .double($0) })),
                      ("steps_today", reading.stepsToday.map { .int(Int($0)) } ?? .null),
                      ("cadence", reading.cadence.map { .int($0) } ?? .null),
                      ("battery", reading.batteryPercent.map { .int($0) } ?? .null),
                      ("sensor_contact", reading.sensorContact.map { .bool($0) } ?? .null),
                      ("energy_expended_kj", reading.energyExpendedKilojoules.map { .int($0) } ?? .null)]
        case .liveMinutesStored(let count):
            object = [("event", "live_minutes_stored"), ("count", .int(count))]
        case .anomaly(let what):
            object = [("event", "anomaly"), ("what", .string(what))]
        case .disconnected(let why):
            object = [("event", "disconnected"), ("reason", .string(why))]
        case .reconnecting(let delay):
            let (seconds, attoseconds) = delay.components
            object = [("event", "reconnecting"), ("after_ms", .int(Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)))]
        case .stopped:
            object = [("event", "stopped")]
        case .storeUnavailable(let outage):
            let (seconds, attoseconds) = outage.retryIn.components
            object = [("event", "store_unavailable"), ("reason", .string(outage.reason)), ("spooled_minutes", .int(outage.spooledMinutes)),
                      ("dropped_minutes", .int(outage.droppedMinutes)), ("history_deferred", .bool(outage.historyDeferred)),
                      ("retry_after_ms", .int(Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)))]
        case .storeAvailable(let replayed):
            object = [("event", "store_available"), ("replayed_minutes", .int(replayed))]
        case .storeWrite(let timing):
            let (seconds, attoseconds) = timing.duration.components
            object = [("event", "store_write"), ("batch", .string(timing.batch.rawValue)), ("rows", .int(timing.rows)),
                      ("us", .int(Int(seconds) * 1_000_000 + Int(attoseconds / 1_000_000_000_000)))]
        }
        writeLine(JSONValue.object(object).text)
    }
}

/// Just enough JSON for NDJSON lines with a fixed key order.
enum JSONValue: ExpressibleByStringLiteral {
    case string(String), int(Int), double(Double), bool(Bool), null
    case array([JSONValue])
    case object([(String, JSONValue)])

    init(stringLiteral value: String) { self = .string(value) }
    static func optional(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }

    var text: String {
        switch self {
        case .string(let s): return JSONString.quoted(s)
        case .int(let i): return String(i)
        case .double(let d): return d.isFinite ? oneDecimal(d) : "null"
        case .bool(let b): return b ? "true" : "false"
        case .null: return "null"
        case .array(let items): return "[" + items.map(\.text).joined(separator: ",") + "]"
        case .object(let pairs): return "{" + pairs.map { JSONString.quoted($0.0) + ":" + $0.1.text }.joined(separator: ",") + "}"
        }
    }
}

/// `2026-11-30T07:15:00Z`: whole seconds in UTC (RFC 3339).
func utcTimestamp(_ date: Date) -> String {
    TimeParsing.format(Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down)), utcOffsetSeconds: 0)
}

/// `value` with one decimal, exactly as C's `%.1f` rounds it (half to even on the binary value).
func oneDecimal(_ value: Double) -> String {
    withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
        let count = withVaList([value]) { vsnprintf(buffer.baseAddress!, buffer.count, "%.1f", $0) }
        return String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress!, count: Int(max(0, min(count, 63)))).bindMemory(to: UInt8.self), as: UTF8.self)
    }
}

/// Writes one line to stdout at once, so a pipe sees each reading as it happens and a killed
/// process loses no printed line; a write error is reported when the command ends (exit 1).
func writeLine(_ line: String) {
    StandardOutput.shared.lineNow(line)
}
