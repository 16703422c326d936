// The library path of trace decoding, timed and allocation-counted:
//
//   DecodeBench TRACE [WARMUP_EVENTS]
//
// Streams TRACE (btsnoop, or pcapng: told by its magic, read by the format's own fixed-buffer
// reader, as `bandsim decode` does) through TraceDecoder.decodeAll (container → HCI → L2CAP → ATT → discovery →
// BandGATT characteristic values) and folds every decoded Heart Rate Measurement (bpm, energy,
// every RR interval) into a checksum so nothing can be optimised away. Prints one line of key=value figures. Heap allocations are
// counted by allocation_counter.c (linked in; see run.sh); "steady" counts those after the first WARMUP_EVENTS
// events (default 10 000: connection, discovery and dictionary growth are done by then).
import BandGATT
import BandTrace
import BandWire
import Glibc

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

func cpuSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Heap allocations so far in this process (allocation_counter.c).
@_silgen_name("bench_allocation_count")
func allocationCount() -> Int

/// Folds every decoded Heart Rate Measurement into a checksum (bpm, RR intervals, energy),
/// so none of the decoding can be optimised away; notes the allocation count after warm-up.
struct Counter: TraceEventHandler {
    typealias Failure = Never
    let warmup: Int
    var events = 0, pdus = 0, heartRate = 0, checksum: UInt64 = 0
    var steadyStart = 0, steadyPDUs = 0

    init(warmup: Int) { self.warmup = warmup }

    mutating func count() {
        events += 1
        if events == warmup { steadyStart = allocationCount(); steadyPDUs = pdus }
    }

    mutating func handle(_ event: borrowing DecodedATTEvent) {
        count()
        pdus += 1
        guard case .heartRateMeasurement(let hr)? = try? event.characteristicValue() else { return }
        heartRate += 1
        checksum = checksum &* 31 &+ UInt64(hr.beatsPerMinute) &+ UInt64(hr.energyExpended ?? 0)
        if let intervals = hr.rrIntervals {
            for index in 0..<intervals.count { checksum = checksum &* 31 &+ UInt64(intervals[index].rawValue) }
        }
    }

    mutating func handle(_ event: ConnectionTraceEvent) { count() }
    mutating func handle(_ anomaly: TraceAnomaly) { count() }
}

@main
struct DecodeBench {
    static func main() throws {
        let arguments = CommandLine.arguments
        guard arguments.count >= 2 else {
            print("usage: DecodeBench TRACE [WARMUP_EVENTS]")
            exit(64)
        }
        let warmup = arguments.count > 2 ? Int(arguments[2]) ?? 10_000 : 10_000

        // The counter must see an allocation it is told about, or its figures mean nothing.
        let before = allocationCount()
        let probe = UnsafeMutableRawPointer.allocate(byteCount: 4096, alignment: 16)
        probe.deallocate()
        let array = [Int](repeating: 1, count: 1000 + arguments.count)
        precondition(allocationCount() >= before + 2 && array.count > 0, "allocation counter is not interposed")

        let path = arguments[1]
        if TraceFileFormat.detect(path: path) == .pcapng {
            try run(TraceDecoder(source: try PcapngFileReader(path: path)), bytesRead: { $0.bytesRead }, warmup: warmup)
        } else {
            try run(TraceDecoder(source: try BtsnoopFileReader(path: path)), bytesRead: { $0.bytesRead }, warmup: warmup)
        }
    }

    static func run<Source: TraceRecordSource>(_ decoder: TraceDecoder<Source>, bytesRead: (Source) -> Int, warmup: Int) throws {
        let startWall = now(), startCPU = cpuSeconds()
        var counter = Counter(warmup: warmup)
        if let damage = decoder.decodeAll(into: &counter) { throw damage }
        let (events, pdus, heartRate, checksum) = (counter.events, counter.pdus, counter.heartRate, counter.checksum)
        let (steadyStart, steadyPDUs) = (counter.steadyStart, counter.steadyPDUs)
        _ = events
        let wall = now() - startWall, cpu = cpuSeconds() - startCPU
        let steadyAllocations = allocationCount() - steadyStart
        let steady = pdus - steadyPDUs
        let bytes = Double(bytesRead(decoder.source))
        print("""
            records=\(decoder.statistics.records) pdus=\(pdus) heart_rate=\(heartRate) bytes=\(Int(bytes)) \
            wall_s=\(wall) cpu_s=\(cpu) mb_per_s=\(bytes / 1e6 / wall) pdus_per_s=\(Double(pdus) / wall) \
            steady_pdus=\(steady) steady_allocations=\(steadyAllocations) \
            allocations_per_pdu=\(steady > 0 ? Double(steadyAllocations) / Double(steady) : 0) checksum=\(checksum)
            """)
    }
}
