import BandReader
import CommandKit
import JSONOutput
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
        case .readingsDropped(let count):
            status("warning: \(count) live reading\(count == 1 ? "" : "s") dropped: the device notifies faster than \(LiveFloodGuard.standardRate) a second")
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
        if case .reading = event, !showReadings { return }
        writeJSONLine { json in
            json.beginObject()
            json.key("event")
            switch event {
            case .connecting(let address, let attempt):
                json.value(verbatim: "connecting")
                json.key("address"); json.value(address)
                json.key("attempt"); json.value(attempt)
            case .connected(let mtu, let kind):
                json.value(verbatim: "connected")
                json.key("mtu"); json.value(mtu)
                json.key("kind"); json.value(kind.rawValue)
                // "band" stays for older consumers: true only for a BandKit band.
                json.key("band"); json.value(kind == .bandkit)
            case .paired(let readerID):
                json.value(verbatim: "paired")
                json.key("reader_id"); json.value(String(readerID, radix: 16))
            case .authenticated:
                json.value(verbatim: "authenticated")
            case .clockSet(let setting):
                json.value(verbatim: "clock_set")
                json.key("utc_offset_s"); json.value(setting.utcOffsetSeconds)
                json.key("time_zone_quarter_hours"); json.value(Int(setting.timeZoneQuarterHours))
                json.key("dst_code"); json.value(Int(setting.dstOffsetCode))
            case .clockChecked(let offset):
                json.value(verbatim: "clock_checked")
                json.key("band_ahead_s"); json.value(offset)
            case .device(let device, let battery):
                json.value(verbatim: "device")
                json.key("name"); json.value(device.name)
                json.key("manufacturer"); json.value(device.manufacturer)
                json.key("model"); json.value(device.model)
                json.key("serial"); json.value(device.serialNumber)
                json.key("firmware"); json.value(device.firmwareRevision)
                json.key("battery"); json.value(battery)
            case .historyTransferStarted(let first, let count, let gap):
                json.value(verbatim: "history_transfer")
                json.key("first"); json.value(Int(first))
                json.key("count"); json.value(Int(count))
                json.key("gap"); json.value(Int(gap))
            case .historyProgress(let received, let total):
                json.value(verbatim: "history_progress")
                json.key("received"); json.value(received)
                json.key("total"); json.value(total)
            case .historyCommitted(let minutes, let cursor, let acknowledged):
                json.value(verbatim: "history_committed")
                json.key("minutes"); json.value(minutes)
                json.key("cursor"); json.value(Int(cursor.nextSequence))
                json.key("history_id"); json.value(String(cursor.historyID, radix: 16))
                json.key("acknowledged"); json.value(acknowledged)
            case .historyDiscarded(let why):
                json.value(verbatim: "history_discarded")
                json.key("reason"); json.value(why)
            case .historyComplete(let minutes):
                json.value(verbatim: "history_complete")
                json.key("minutes"); json.value(minutes)
            case .streaming:
                json.value(verbatim: "streaming")
            case .reading(let reading):
                json.value(verbatim: "reading")
                json.key("time"); json.value(utcTimestamp(reading.time))
                json.key("kind"); json.value(reading.kind)
                json.key("heart_rate"); json.value(reading.heartRate)
                json.key("rr_ms")
                json.beginArray()
                for interval in reading.rrMilliseconds { json.value(interval, fractionDigits: 1) }
                json.endArray()
                json.key("steps_today"); json.value(reading.stepsToday.map { Int($0) })
                json.key("cadence"); json.value(reading.cadence)
                json.key("battery"); json.value(reading.batteryPercent)
                json.key("sensor_contact"); json.value(reading.sensorContact)
                json.key("energy_expended_kj"); json.value(reading.energyExpendedKilojoules)
            case .liveMinutesStored(let count):
                json.value(verbatim: "live_minutes_stored")
                json.key("count"); json.value(count)
            case .anomaly(let what):
                json.value(verbatim: "anomaly")
                json.key("what"); json.value(what)
            case .disconnected(let why):
                json.value(verbatim: "disconnected")
                json.key("reason"); json.value(why)
            case .reconnecting(let delay):
                json.value(verbatim: "reconnecting")
                json.key("after_ms"); json.value(milliseconds(delay))
            case .stopped:
                json.value(verbatim: "stopped")
            case .storeUnavailable(let outage):
                json.value(verbatim: "store_unavailable")
                json.key("reason"); json.value(outage.reason)
                json.key("spooled_minutes"); json.value(outage.spooledMinutes)
                json.key("dropped_minutes"); json.value(outage.droppedMinutes)
                json.key("history_deferred"); json.value(outage.historyDeferred)
                json.key("retry_after_ms"); json.value(milliseconds(outage.retryIn))
            case .storeAvailable(let replayed):
                json.value(verbatim: "store_available")
                json.key("replayed_minutes"); json.value(replayed)
            case .readingsDropped(let count):
                json.value(verbatim: "readings_dropped")
                json.key("count"); json.value(count)
            case .storeWrite(let timing):
                let (seconds, attoseconds) = timing.duration.components
                json.value(verbatim: "store_write")
                json.key("batch"); json.value(timing.batch.rawValue)
                json.key("rows"); json.value(timing.rows)
                json.key("us"); json.value(Int(seconds) * 1_000_000 + Int(attoseconds / 1_000_000_000_000))
            }
            json.endObject()
        }
    }

    /// Whole milliseconds of `delay`, truncated.
    private func milliseconds(_ delay: Duration) -> Int {
        let (seconds, attoseconds) = delay.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}

/// `2026-11-30T07:15:00Z`: whole seconds in UTC (RFC 3339).
func utcTimestamp(_ date: Date) -> String {
    TimeParsing.format(Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down)), utcOffsetSeconds: 0)
}

/// Writes one line to stdout at once, so a pipe sees each reading as it happens and a killed
/// process loses no printed line; a write error is reported when the command ends (exit 1).
func writeLine(_ line: String) {
    StandardOutput.shared.lineNow(line)
}

/// Writes one JSON object (or value) as a line, at once (see ``writeLine(_:)``).
func writeJSONLine(_ body: (inout JSONWriter<JSONBuffer>) -> Void) {
    writeLine(JSON.text(body))
}
