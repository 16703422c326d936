// The reader's live write path alone: `SampleWriter.writeLive` of one minute at a time, as a
// stream writes every 5 s (each write holds the minute that closed since the last), into a new
// store. Built by bench/reader/live-writes.sh against the release objects of BandReader.
//
//     LiveWriteBench DIRECTORY [WRITES]     prints writes, seconds, microseconds per write
import BandReader
import Foundation
import HealthModel
import HealthStore

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: LiveWriteBench DIRECTORY [WRITES]\n".utf8))
    exit(64)
}
let writes = arguments.count > 2 ? Int(arguments[2]) ?? 2000 : 2000
let path = arguments[1] + "/live-\(getpid()).sqlite"
defer { for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) } }

let store = try HealthStore(path: path, cacheKiB: 2048)
let writer = try SampleWriter(store: store, deviceIdentifier: "AA:BB:CC:DD:EE:FF",
                              device: DeviceInfo(name: "BandKit Band", manufacturer: "BandKit", hardwareIdentifier: "SN1"))
let first: UInt32 = 1_796_000_000 / 60 * 60
let clock = ContinuousClock()
let started = clock.now
for index in 0..<writes {
    var minute = LiveMinute(start: first + UInt32(index) * 60, utcOffsetSeconds: 3600)
    minute.activity = CounterDelta(steps: 60 + UInt32(index % 7), distanceDecimetres: 420, energyDecikilocalories: 31)
    for bpm in 70..<82 { minute.heartRate.add(bpm + index % 3) }
    minute.rrIntervals = [800, 820, 790, 805]
    try writer.writeLive([minute])
}
let seconds = Double((clock.now - started).components.attoseconds) / 1e18 + Double((clock.now - started).components.seconds)
print("\(writes) live writes, \(String(format: "%.3f", seconds)) s, \(String(format: "%.1f", seconds / Double(writes) * 1e6)) µs per write")
