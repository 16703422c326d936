// One simulated gateway of bench/gateway/store-writers.sh: PEOPLE people with DEVICES bands each,
// every band writing one live minute per band minute through the reader's own write path
// (`SampleWriter.writeLive`, as `band stream` does), at SPEED band seconds per real second, for
// SECONDS. One store connection per person (a HealthStore is one person's), one thread per person:
// a person's bands take turns on it, as they would in one gateway process. Bands start spread
// over the first minute so that writes are not all at once.
//
//     StoreWritersBench write STORE GATEWAY PEOPLE DEVICES SPEED SECONDS BASE OUTPUT
//     StoreWritersBench verify STORE GATEWAYS PEOPLE DEVICES MINUTES BASE
//
// `write` appends one line per commit to OUTPUT: `latency_us rows lateness_us` (the wall time of
// the call, through COMMIT; the samples inserted or replaced; how late the write started against
// its schedule), and the process's CPU time in microseconds to OUTPUT.cpu. A failed write is retried after 100 ms (the store unavailable or busy), up to 50
// times, as a gateway would spool; a write given up is reported on stderr, and `verify` finds it lost.
// `verify` reads every person's change feed from the start, in pages, and checks each band's step
// samples against what `write` wrote (the truth is a function of gateway, person, band and minute):
// prints `expected N found N lost N duplicated N wrong N rows N`, exit 1 unless all equal.
#if canImport(Glibc)
import Glibc
#endif
import BandReader
import Foundation
import HealthModel
import HealthStore
import HealthStorePostgreSQL

func fail(_ message: String, code: Int32 = 64) -> Never {
    FileHandle.standardError.write(Data("store-writers: \(message)\n".utf8))
    exit(code)
}

func person(_ gateway: Int, _ person: Int) -> String { "g\(gateway)p\(person)" }
func deviceID(_ gateway: Int, _ person: Int, _ device: Int) -> String { "G\(gateway)-P\(person)-D\(device)" }
/// A band's steps in a minute: the truth `verify` checks against.
func stepsOf(_ gateway: Int, _ person: Int, _ device: Int, _ minute: Int) -> UInt32 {
    UInt32((gateway * 7919 + person * 104_729 + device * 31 + minute * 17) % 150 + 1)
}

/// Adds the people missing (on one connection, closed before the people's are opened). Adding a
/// person takes the store's lock: a deadlock with another store-wide writer aborts one of them,
/// which tries again after 100 ms, up to 50 times, as a write does.
func addPeople(_ path: String, _ names: [String]) throws {
    let store = try HealthStore(path: path, cacheKiB: 2048)
    for name in names {
        for attempt in 1... {
            do {
                try store.addPerson(named: name)
                break
            } catch HealthStoreError.personExists {
                break
            } catch where attempt < 50 {
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
    }
}

final class Output: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func add(_ line: String) { lock.withLock { lines.append(line) } }
    var text: String { lock.withLock { lines.joined(separator: "\n") + (lines.isEmpty ? "" : "\n") } }
}

HealthStore.enablePostgreSQL()
let arguments = Array(CommandLine.arguments.dropFirst())
let numbers = arguments.dropFirst(2).prefix(arguments.first == "write" ? 6 : 5).map { Int($0) }
guard arguments.count >= 7, numbers.allSatisfy({ $0 != nil }) else {
    fail("usage: StoreWritersBench write STORE GATEWAY PEOPLE DEVICES SPEED SECONDS BASE OUTPUT | verify STORE GATEWAYS PEOPLE DEVICES MINUTES BASE")
}
let path = arguments[1]
let values = numbers.map { $0! }

switch arguments[0] {
case "write":
    guard arguments.count == 9 else { fail("write needs 8 arguments") }
    let (gateway, people, devices, speed, seconds, base) = (values[0], values[1], values[2], values[3], values[4], values[5])
    let minutes = seconds * speed / 60
    let minuteSeconds = 60.0 / Double(speed)  // real seconds per band minute
    let output = Output()
    let started = Date()
    let group = DispatchGroup()
    let failures = Output()
    try addPeople(path, (0..<people).map { person(gateway, $0) })
    for p in 0..<people {
        group.enter()
        Thread.detachNewThread {
            defer { group.leave() }
            do {
                let store = try HealthStore(path: path, cacheKiB: 2048, person: person(gateway, p))
                let writers = try (0..<devices).map { d in
                    try SampleWriter(store: store, deviceIdentifier: deviceID(gateway, p, d),
                                     device: DeviceInfo(name: "BandKit Band", manufacturer: "BandKit",
                                                        hardwareIdentifier: deviceID(gateway, p, d)))
                }
                // Each band's minutes close one band minute apart; bands are spread over the first one.
                var due: [(time: Double, device: Int, minute: Int)] = []
                for d in 0..<devices {
                    let phase = minuteSeconds * Double(p * devices + d) / Double(people * devices)
                    for m in 0..<minutes { due.append((phase + Double(m + 1) * minuteSeconds, d, m)) }
                }
                due.sort { $0.time < $1.time }
                for (time, d, m) in due {
                    let wait = time - Date().timeIntervalSince(started)
                    if wait > 0 { Thread.sleep(forTimeInterval: wait) }
                    let lateness = max(0, -wait)
                    var minute = LiveMinute(start: UInt32(base + m * 60), utcOffsetSeconds: 0)
                    minute.activity = CounterDelta(steps: stepsOf(gateway, p, d, m), distanceDecimetres: 420, energyDecikilocalories: 31)
                    for bpm in 70..<82 { minute.heartRate.add(bpm + m % 3) }
                    minute.rrIntervals = [800, 820, 790, 805]
                    var attempt = 0
                    while true {
                        let begin = Date()
                        do {
                            let written = try writers[d].writeLive([minute])
                            let latency = Date().timeIntervalSince(begin)
                            output.add("\(Int(latency * 1e6)) \(written.inserted + written.replaced) \(Int(lateness * 1e6))")
                            break
                        } catch {
                            attempt += 1
                            if attempt > 50 {
                                failures.add("\(deviceID(gateway, p, d)) minute \(m): gave up: \(error)")
                                break
                            }
                            Thread.sleep(forTimeInterval: 0.1)
                        }
                    }
                }
            } catch {
                failures.add("\(person(gateway, p)): \(error)")
            }
        }
    }
    group.wait()
    try output.text.write(toFile: arguments[8], atomically: true, encoding: .utf8)
    // The process's CPU (user + system), beside the server's: which side a row costs.
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let cpu = Int(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1_000_000 + Int(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec)
    try "\(cpu)\n".write(toFile: arguments[8] + ".cpu", atomically: true, encoding: .utf8)
    if !failures.text.isEmpty { fail(failures.text, code: 1) }
case "verify":
    guard arguments.count == 7 else { fail("verify needs 6 arguments") }
    _ = try HealthStore(path: path, cacheKiB: 2048)  // creates and migrates a new store
    let (gateways, people, devices, minutes, base) = (values[0], values[1], values[2], values[3], values[4])
    var (expected, found, lost, duplicated, wrong, rows) = (0, 0, 0, 0, 0, 0)
    for g in 0..<gateways {
        for p in 0..<people {
            let store = try HealthStore(path: path, cacheKiB: 2048, person: person(g, p))
            var anchor = Anchor.zero
            var steps: [String: [Double]] = [:]
            while true {
                let changes = try store.changes(since: anchor, limit: 20_000, as: .owner)
                rows += changes.samples.count
                for sample in changes.samples {
                    guard let quantity = sample.quantitySample, quantity.type == .stepCount,
                          let key = quantity.syncIdentifier else { continue }
                    steps[key, default: []].append(quantity.quantity.value)
                }
                if changes.newAnchor == anchor { break }
                anchor = changes.newAnchor
            }
            for d in 0..<devices {
                for m in 0..<minutes {
                    expected += 1
                    // SampleWriter's sync identifier: device, type, minute start.
                    let key = "\(deviceID(g, p, d))|\(QuantityType.stepCount.identifier)|\(base + m * 60)"
                    let values = steps.removeValue(forKey: key) ?? []
                    if values.isEmpty { lost += 1; continue }
                    found += 1
                    if values.count > 1 { duplicated += values.count - 1 }
                    if values.contains(where: { $0 != Double(stepsOf(g, p, d, m)) }) { wrong += 1 }
                }
            }
            wrong += steps.count  // step samples of minutes nobody wrote
        }
    }
    print("expected \(expected) found \(found) lost \(lost) duplicated \(duplicated) wrong \(wrong) rows \(rows)")
    exit(lost == 0 && duplicated == 0 && wrong == 0 && found == expected ? 0 : 1)
default:
    fail("unknown mode \(arguments[0]) (write, verify)")
}
