import CommandKit
import Foundation
import HealthModel
import HealthStore
import JSONOutput

/// `health query TYPE`: raw samples (not merged: summing them double-counts; use stats).
struct QueryCommand: Command {
    static let configuration = CommandConfiguration(
        name: "query", abstract: "List raw samples of a type (not merged across sources; see 'health stats').",
        options: [.argument("TYPE", help: "Sample type.")] + rangeOptions + [
            .flag("strict-start", help: "Only samples starting inside the range (default: overlapping it)."),
            .flag("strict-end", help: "Only samples ending inside the range."),
            .option("source", value: "ID", repeats: true, help: "Only samples from this source (repeatable)."),
            .flag("latest", help: "Only the most recent sample (latest end)."),
            .option("limit", value: "N", help: "At most N samples."),
            .flag("json", help: "Print a JSON array."),
            storeOption, personOption,
        ])

    var query: HealthQuery
    var zone: TimeZone
    var json: Bool
    var storePath: StoreChoice

    init(arguments: ParsedArguments) throws(UsageError) {
        let type = try arguments.sampleType(arguments.required("TYPE"))
        zone = try arguments.timeZone()
        let latest = arguments.flag("latest")
        let range = try arguments.timeRange(zone: zone, defaultToday: false)
        var limit = try arguments.value("limit", as: "a positive count") { Int($0).flatMap { $0 > 0 ? $0 : nil } }
        if latest { limit = 1 }
        let predicate: TimePredicate = switch (arguments.flag("strict-start"), arguments.flag("strict-end")) {
        case (true, true): .strictStartAndEnd
        case (true, false): .strictStart
        case (false, true): .strictEnd
        case (false, false): .overlaps
        }
        let sources = arguments.values("source")
        query = HealthQuery(type: type, range: range, predicate: predicate, sources: sources.isEmpty ? nil : sources,
                            limit: limit, sort: latest ? .endDescending : .startAscending)
        json = arguments.flag("json")
        storePath = arguments.storePath
    }

    func run() throws -> ExitCode {
        let store = try openStore(storePath, readOnly: true)
        let samples = try store.samples(query, as: .owner)
        if json {
            StandardOutput.shared.line(JSON.text(capacity: 256 * samples.count + 2) { json in
                json.beginArray()
                for sample in samples {
                    json.lineBreak()
                    SampleFormatting.writeJSON(sample, zone: zone, to: &json)
                }
                json.endArray()
            })
        } else if samples.isEmpty {
            StandardOutput.shared.line("no \(query.type) samples")
        } else {
            for sample in samples { StandardOutput.shared.line(SampleFormatting.line(sample, zone: zone)) }
        }
        return .success
    }
}

/// How samples print as text, JSON (the import format) and CSV.
enum SampleFormatting {
    static func valueAndUnit(_ sample: Sample) -> (String, String) {
        switch sample {
        case .quantity(let q): return (jsonNumber(q.quantity.value), q.quantity.unit.symbol)
        case .category(let c): return (c.type.valueNames[c.value], "")
        }
    }

    static func line(_ sample: Sample, zone: TimeZone) -> String {
        let (value, unit) = valueAndUnit(sample)
        var text = "\(TimeParsing.format(sample.start, in: zone))  \(TimeParsing.format(sample.end, in: zone))  "
            + "\(value)\(unit.isEmpty ? "" : " " + unit)  \((sample.source?.id ?? "?").terminalEscaped)"
        if case .quantity(let q) = sample {
            if let device = q.device?.name { text += "  device=\(device.terminalEscaped)" }
            if q.userEntered { text += "  manual" }
        }
        return text
    }

    /// One line of the import format (`health import` reads it back).
    static func json(_ sample: Sample, zone: TimeZone) -> String {
        JSON.text { writeJSON(sample, zone: zone, to: &$0) }
    }

    static func writeJSON(_ sample: Sample, zone: TimeZone, to json: inout JSONWriter<JSONBuffer>) {
        json.beginObject()
        json.key("type"); json.value(sample.sampleType.identifier)
        let device: DeviceInfo?, syncID: String?, syncVersion: Int64, userEntered: Bool, metadata: [String: String], recorded: TimeZone?
        switch sample {
        case .quantity(let q):
            json.key("value"); json.value(q.quantity.value)
            json.key("unit"); json.value(q.quantity.unit.symbol)
            (device, syncID, syncVersion, userEntered, metadata, recorded) = (q.device, q.syncIdentifier, q.syncVersion, q.userEntered, q.metadata, q.timeZone)
        case .category(let c):
            json.key("value"); json.value(c.type.valueNames[c.value])
            (device, syncID, syncVersion, userEntered, metadata, recorded) = (c.device, c.syncIdentifier, c.syncVersion, c.userEntered, c.metadata, c.timeZone)
        }
        json.key("start"); json.value(TimeParsing.format(sample.start, in: zone))
        json.key("end"); json.value(TimeParsing.format(sample.end, in: zone))
        json.key("source"); json.value(sample.source?.id ?? "")
        if let version = sample.source?.version, !version.isEmpty { json.key("source_version"); json.value(version) }
        if let device {
            json.key("device")
            writeDevice(device, to: &json)
        }
        if let syncID {
            json.key("sync_id"); json.value(syncID)
            json.key("sync_version"); json.value(syncVersion)
        }
        if let recorded { json.key("zone"); json.value(recorded.identifier) }
        if userEntered { json.key("user_entered"); json.value(true) }
        if !metadata.isEmpty {
            json.key("metadata")
            writeMetadata(metadata, to: &json)
        }
        json.key("id"); json.value(sample.id.uuidString.lowercased())
        json.endObject()
    }

    /// The device's fields that are known, as an object.
    static func writeDevice(_ device: DeviceInfo, to json: inout JSONWriter<JSONBuffer>) {
        json.beginObject()
        if let v = device.name { json.key("name"); json.value(v) }
        if let v = device.manufacturer { json.key("manufacturer"); json.value(v) }
        if let v = device.model { json.key("model"); json.value(v) }
        if let v = device.hardwareIdentifier { json.key("hardware_id"); json.value(v) }
        if let v = device.firmwareVersion { json.key("firmware"); json.value(v) }
        json.endObject()
    }

    /// Metadata as an object with its keys sorted.
    static func writeMetadata(_ metadata: [String: String], to json: inout JSONWriter<JSONBuffer>) {
        json.beginObject()
        for key in metadata.keys.sorted() {
            json.key(escaping: key)
            json.value(metadata[key]!)
        }
        json.endObject()
    }

    static let csvHeader = "type,start,end,value,unit,source,source_version,device,sync_id,sync_version,user_entered,zone,id"

    static func csv(_ sample: Sample, zone: TimeZone) -> String {
        let (value, unit) = valueAndUnit(sample)
        var device = "", syncID = "", syncVersion = "", userEntered = false, recorded = ""
        switch sample {
        case .quantity(let q):
            device = q.device?.name ?? q.device?.hardwareIdentifier ?? ""
            syncID = q.syncIdentifier ?? ""
            syncVersion = q.syncIdentifier == nil ? "" : String(q.syncVersion)
            userEntered = q.userEntered
            recorded = q.timeZone?.identifier ?? ""
        case .category(let c):
            device = c.device?.name ?? c.device?.hardwareIdentifier ?? ""
            syncID = c.syncIdentifier ?? ""
            syncVersion = c.syncIdentifier == nil ? "" : String(c.syncVersion)
            userEntered = c.userEntered
            recorded = c.timeZone?.identifier ?? ""
        }
        return [sample.sampleType.identifier, TimeParsing.format(sample.start, in: zone), TimeParsing.format(sample.end, in: zone),
                value, unit, sample.source?.id ?? "", sample.source?.version ?? "", device, syncID, syncVersion,
                userEntered ? "true" : "false", recorded, sample.id.uuidString.lowercased()]
            .enumerated().map { csvField($1, neutralisingFormulas: $0 != 3) }.joined(separator: ",")
    }

    /// RFC 4180: quote fields containing a comma or quote; double inner quotes.
    ///
    /// Control characters are written escaped as on a terminal (``TerminalText/escaped(_:)``:
    /// `\e`, `\n`, `\xNN`, C1 as `\u{9B}`, a backslash as `\\`), so `cat`-ing or `less`-ing the
    /// file cannot run a band name's escape sequence, and the text stays recoverable; NDJSON
    /// export is the byte-exact format. A text field a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, or
    /// a tab or CR that some strip first; OWASP "CSV injection") gets a leading `'`, which
    /// spreadsheets show as text: a source named `=HYPERLINK(…)` stays a name. The value column
    /// is our own number (`-1.5` stays a number) and is not touched.
    static func csvField(_ text: String, neutralisingFormulas: Bool = true) -> String {
        var text = TerminalText.escaped(text)
        if neutralisingFormulas, let first = text.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) {
            text = "'" + text
        }
        guard text.contains(where: { $0 == "," || $0 == "\"" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
