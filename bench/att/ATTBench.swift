// Decoding cost and heap allocations per PDU for the ATT and characteristic decoders.
// Built and run by bench/att/run.sh (swiftc -O, no sanitizers).
import BandATT
import BandGATT
import BandWire
import Glibc

@_silgen_name("bench_allocation_count")
func allocationCount() -> UInt

struct Result {
    var nanosecondsPerPDU: Double
    var allocationsPerPDU: Double
}

/// CPU time of this thread, in nanoseconds: on a shared machine wall time also counts waiting for a core.
func threadCPUNanoseconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return Double(now.tv_sec) * 1e9 + Double(now.tv_nsec)
}

/// Runs `body` over `input` `iterations` times; best of `rounds` by CPU time, allocations of that round.
func measure(_ input: [UInt8], iterations: Int, rounds: Int = 5, _ body: (UnsafeRawBufferPointer) -> Int) -> Result {
    var best = Result(nanosecondsPerPDU: .infinity, allocationsPerPDU: .infinity)
    var sink = 0
    input.withUnsafeBytes { raw in
        for _ in 0..<rounds {
            let allocationsBefore = allocationCount()
            let start = threadCPUNanoseconds()
            for _ in 0..<iterations { sink &+= body(raw) }
            let nanoseconds = threadCPUNanoseconds() - start
            let allocations = allocationCount() - allocationsBefore
            if nanoseconds / Double(iterations) < best.nanosecondsPerPDU {
                best = Result(nanosecondsPerPDU: nanoseconds / Double(iterations),
                              allocationsPerPDU: Double(allocations) / Double(iterations))
            }
        }
    }
    precondition(sink != 42, "keeps the work alive")
    return best
}

func bytes(_ hex: String) -> [UInt8] { Hex.decode(hex)! }

let heartRateNotification = bytes("1b 12 00 16 55 b6 02 94 02")
let characteristicDiscovery = bytes("09 07 02 00 02 03 00 00 2a 04 00 02 05 00 01 2a 06 00 02 07 00 04 2a")
let iterations = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 1_000_000

// Baseline: the least a decoder that owns its value must do — copy the bytes into an inline
// 512-byte buffer, and read one field.
let baseline = measure(heartRateNotification, iterations: iterations) { raw in
    var owned = InlineArray<512, UInt8>(repeating: 0)
    for i in 0..<raw.count { owned[i] = raw[i] }
    return Int(owned[1])
}

let notification = measure(heartRateNotification, iterations: iterations) { raw in
    guard case .handleValueNotification(let pdu) = try? ATTPDU(parsingAll: raw) else { fatalError("decode") }
    return Int(pdu.handle)
}

let notificationAndHeartRate = measure(heartRateNotification, iterations: iterations) { raw in
    guard case .handleValueNotification(let pdu) = try? ATTPDU(parsingAll: raw) else { fatalError("decode") }
    let value = pdu.value.withUnsafeBytes { view in
        try? CharacteristicValue(uuid: GATTUUID.Characteristic.heartRateMeasurement, bytes: view, baseOffset: 3)
    }
    guard case .heartRateMeasurement(let measurement) = value else { fatalError("decode HR") }
    return Int(measurement.beatsPerMinute) + Int(measurement.rrIntervals?.first?.rawValue ?? 0)
}

let discovery = measure(characteristicDiscovery, iterations: iterations) { raw in
    guard case .readByTypeResponse(let response) = try? ATTPDU(parsingAll: raw) else { fatalError("decode") }
    var total = 0
    response.forEachEntry { _, value in
        if let declaration = try? CharacteristicDeclaration(parsingAll: value) { total &+= Int(declaration.valueHandle) }
    }
    return total
}

func line(_ name: String, _ result: Result) {
    let ns = (result.nanosecondsPerPDU * 10).rounded() / 10
    let ratio = (result.nanosecondsPerPDU / baseline.nanosecondsPerPDU * 10).rounded() / 10
    print("\(name): \(ns) ns/PDU (\(ratio)× the copy baseline), \(result.allocationsPerPDU) heap allocations/PDU")
}

print("iterations per round: \(iterations), best of 5 rounds by thread CPU time")
line("baseline: copy 9 bytes into an inline 512-byte buffer", baseline)
line("ATTPDU: Handle Value Notification (9 bytes)", notification)
line("ATTPDU + CharacteristicValue: notification → Heart Rate Measurement with 2 RR", notificationAndHeartRate)
line("ATTPDU: Read By Type Response, 3 characteristic declarations", discovery)
