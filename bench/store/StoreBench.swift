// The health store benchmark driver (bench/store/run.sh builds and runs it; never run in CI).
//
//   StoreBench generate-ndjson FILE            a year of minute samples, 3 sources × 4 types, as NDJSON
//   StoreBench generate-sql FILE TYPEIDS       the same rows as SQL INSERTs for the sqlite3 CLI baseline
//   StoreBench library-import STORE            the same rows through the HealthStore API, one transaction
//   StoreBench daily-steps STORE RUNS          daily merged step totals for the year (Europe/Berlin)
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import HealthModel
import HealthStore

let year = 2025
/// BENCH_DAYS shortens the run while working on the bench; the recorded figures use 365.
let days = Int(ProcessInfo.processInfo.environment["BENCH_DAYS"] ?? "") ?? 365
let minutes = days * 24 * 60
let firstMinute = Int64(Date(timeIntervalSince1970: 1_735_689_600).timeIntervalSince1970) / 60  // 2025-01-01T00:00:00Z

struct Source {
    var id: String
    var short: String
    var device: DeviceInfo?
}

let sources = [
    Source(id: "bandkit.band", short: "band", device: DeviceInfo(name: "Band", hardwareIdentifier: "AA:BB:CC:DD:EE:01")),
    Source(id: "com.example.watch", short: "watch", device: DeviceInfo(name: "Watch", hardwareIdentifier: "AA:BB:CC:DD:EE:02")),
    Source(id: "com.example.phone", short: "phone", device: nil),
]
/// BENCH_TYPES (comma-separated identifiers, e.g. `step-count`) keeps only those types: the
/// PostgreSQL daily-totals bench (bench/store/postgres-daily.sh) needs only the steps.
let types: [QuantityType] = {
    let all: [QuantityType] = [.stepCount, .heartRate, .activeEnergyBurned, .distanceWalkingRunning]
    guard let wanted = ProcessInfo.processInfo.environment["BENCH_TYPES"]?.split(separator: ",").map(String.init) else { return all }
    let kept = all.filter { wanted.contains($0.identifier) }
    guard kept.count == wanted.count else {
        FileHandle.standardError.write(Data("StoreBench: BENCH_TYPES=\(wanted.joined(separator: ",")): known types are \(all.map(\.identifier))\n".utf8))
        exit(64)
    }
    return kept
}()

/// The value of one row: deterministic, varied, plausible.
func value(type: Int, source: Int, minute: Int) -> Double {
    let phase = (minute * 7 + source * 13) % 120
    switch types[type] {
    case .stepCount: return Double(phase)                              // steps per minute
    case .heartRate: return Double(55 + (minute + source) % 60)        // bpm
    case .activeEnergyBurned: return Double(phase) * 0.04              // kcal
    default: return Double(phase) * 0.75                               // metres
    }
}

/// Rows are emitted minute by minute, source by source, type by type: the order a live
/// system would write them in.
func forEachRow(_ body: (Int, Int, Int) throws -> Void) rethrows {
    for minute in 0..<minutes {
        for source in sources.indices {
            for type in types.indices { try body(minute, source, type) }
        }
    }
}

func iso(_ epochMinute: Int64) -> String {
    var seconds = time_t(epochMinute * 60)
    var parts = tm()
    gmtime_r(&seconds, &parts)
    return String(format: "%04d-%02d-%02dT%02d:%02d:00Z", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
                  Int(parts.tm_hour), Int(parts.tm_min))
}

func syncID(_ source: Int, _ type: Int, _ minute: Int) -> String {
    "\(sources[source].short):\(types[type].identifier):\(firstMinute + Int64(minute))"
}

final class Output {
    let handle: FileHandle
    var buffer = ""
    init(_ path: String) {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        handle = FileHandle(forWritingAtPath: path)!
    }
    func write(_ text: String) {
        buffer += text
        if buffer.utf8.count > 1 << 20 { flush() }
    }
    func flush() {
        handle.write(Data(buffer.utf8))
        buffer = ""
    }
}

func generateNDJSON(_ path: String) {
    let out = Output(path)
    var times: [String] = []
    for minute in 0...minutes { times.append(iso(firstMinute + Int64(minute))) }
    let devices = sources.map { source in
        source.device.map { #","device":{"name":"\#($0.name!)","hardware_id":"\#($0.hardwareIdentifier!)"}"# } ?? ""
    }
    forEachRow { minute, source, type in
        let number = value(type: type, source: source, minute: minute)
        let text = number == number.rounded() ? String(Int(number)) : String(number)
        out.write(#"{"type":"\#(types[type].identifier)","value":\#(text),"start":"\#(times[minute])","end":"\#(times[minute + 1])","source":"\#(sources[source].id)"\#(devices[source]),"sync_id":"\#(syncID(source, type, minute))","sync_version":1}"# + "\n")
    }
    out.flush()
}

/// The same rows as the NDJSON, as the store would hold them, for the sqlite3 CLI.
func generateSQL(_ path: String, typeIDs: [String: Int]) {
    let out = Output(path)
    out.write("PRAGMA synchronous = NORMAL;\nPRAGMA cache_size = -65536;\nPRAGMA foreign_keys = ON;\nBEGIN;\n")
    for (index, source) in sources.enumerated() {
        out.write("INSERT INTO app (id, bundle_id, first_anchor, records_device) VALUES (\(index + 1), '\(source.id)', 1, \(source.device == nil ? 0 : 1));\n")
        if let device = source.device {
            out.write("INSERT INTO device (id, name, manufacturer, model, hardware_id, firmware) VALUES (\(index + 1), '\(device.name!)', '', '', '\(device.hardwareIdentifier!)', '');\n")
        }
    }
    let hex = Array("0123456789abcdef".utf8)
    var anchor = 0
    var rowsInStatement = 0
    forEachRow { minute, source, type in
        anchor += 1
        let start = (firstMinute + Int64(minute)) * 60_000_000
        let uuid = UUID.timeOrdered()
        var uuidHex = [UInt8]()
        withUnsafeBytes(of: uuid.uuid) { for byte in $0 { uuidHex.append(hex[Int(byte >> 4)]); uuidHex.append(hex[Int(byte & 15)]) } }
        let number = value(type: type, source: source, minute: minute)
        let device = sources[source].device == nil ? "NULL" : String(source + 1)
        out.write(rowsInStatement == 0
                  ? "INSERT INTO sample (anchor, uuid, type_id, start_us, end_us, value, app_id, app_version, device_id, zone, sync_id, sync_version, user_entered, metadata) VALUES\n"
                  : ",\n")
        out.write("(\(anchor),X'\(String(decoding: uuidHex, as: UTF8.self))',\(typeIDs[types[type].identifier]!),\(start),\(start + 60_000_000),\(Double(number)),\(source + 1),'',\(device),NULL,'\(syncID(source, type, minute))',1,0,NULL)")
        rowsInStatement += 1
        if rowsInStatement == 100 {
            out.write(";\n")
            rowsInStatement = 0
        }
    }
    if rowsInStatement > 0 { out.write(";\n") }
    out.write("UPDATE change_counter SET anchor = \(anchor);\nCOMMIT;\n")
    out.flush()
}

func libraryImport(_ storePath: String) throws {
    let store = try HealthStore(path: storePath)
    let identities = sources.map { AppIdentity(id: $0.id, version: "") }
    let began = ContinuousClock.now
    try store.write(as: .owner) { transaction in
        try forEachRow { minute, source, type in
            let start = Date(timeIntervalSince1970: Double((firstMinute + Int64(minute)) * 60))
            let sample = QuantitySample(type: types[type], quantity: Quantity(value(type: type, source: source, minute: minute),
                                                                              types[type].canonicalUnit),
                                        start: start, end: start.addingTimeInterval(60), device: sources[source].device,
                                        syncIdentifier: syncID(source, type, minute), syncVersion: 1)
            try transaction.save(sample, attributedTo: identities[source])
        }
    }
    let elapsed = ContinuousClock.now - began
    print("library-import rows=\(minutes * sources.count * types.count) seconds=\(seconds(elapsed))")
}

func dailySteps(_ storePath: String, runs: Int) throws {
    let store = try HealthStore(path: storePath)
    let berlin = TimeZone(identifier: "Europe/Berlin")!
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = berlin
    let from = calendar.date(from: DateComponents(year: year, month: 1, day: 1))!
    let to = calendar.date(from: DateComponents(year: year + 1, month: 1, day: 1))!
    var timings: [Double] = []
    var total = 0.0
    for _ in 0..<runs {
        let began = ContinuousClock.now
        let buckets = try store.statistics(type: .stepCount, range: from..<to, options: .sum, bucket: .day, timeZone: berlin, as: .owner)
        timings.append(seconds(ContinuousClock.now - began))
        total = buckets.compactMap(\.sum).reduce(0, +)
        precondition(buckets.count == 365)  // the calendar year, whatever BENCH_DAYS filled
    }
    timings.sort()
    print("daily-steps days=365 samples=\(minutes * sources.count) merged_total=\(Int(total)) best_ms=\(timings[0] * 1000) median_ms=\(timings[timings.count / 2] * 1000)")
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

let arguments = CommandLine.arguments
switch arguments.count > 1 ? arguments[1] : "" {
case "generate-ndjson": generateNDJSON(arguments[2])
case "generate-sql":
    var ids: [String: Int] = [:]
    for pair in arguments[3].split(separator: ",") {
        let parts = pair.split(separator: "=")
        ids[String(parts[0])] = Int(parts[1])!
    }
    generateSQL(arguments[2], typeIDs: ids)
case "library-import": try libraryImport(arguments[2])
case "daily-steps": try dailySteps(arguments[2], runs: Int(arguments[3]) ?? 5)
default:
    FileHandle.standardError.write(Data("usage: StoreBench generate-ndjson|generate-sql|library-import|daily-steps …\n".utf8))
    exit(64)
}
