// libFuzzer harness for StepCountTracker (BandReader): a device's daily running step total
// (InfiniTime's Motion step count) turned into steps, under arbitrary readings, reconnects,
// resets and clock jumps.
//
// Input: 6-byte operations. Byte 0 picks: 0 a reconnect (the next reading is a connection's
// first); 1 a reset of the watch's count to a small value (midnight or reboot); 2 a clock jump of
// the next reading by up to ±18 h; else a reading. Bytes 1–2: steps walked since the last
// operation (u16); bytes 3–5: seconds passed (u24). The first 6 bytes, when present, are the
// stored state's total and time offset (nothing stored when byte 0 is odd).
// Properties checked on every input:
//  1. no trap;
//  2. never more steps than the watch counted: the outcomes' sum ≤ the sum of every rise between
//     readings plus every total after a fall, plus the first total seen (a first sight) — on
//     runs without clock jumps (a clock moved forward past midnight looks like a midnight reset:
//     documented in StepCountTracker). The watch's count restarts at each local midnight;
//  3. never counted twice: on a run without resets, clock jumps or a first sight, the sum is
//     exactly the last total minus the stored one, wherever the reconnects fall;
//  4. a gap is never empty and spans forward in time (from ≤ to); the state kept is the last reading.
import BandReader

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard bytes.count >= 6 else { return 0 }
    let start: UInt32 = 1_796_032_800
    let offset = 3600
    let storedTotal = UInt32(bytes[1]) << 8 | UInt32(bytes[2])
    let stored = bytes[0] & 1 == 0 ? StepCountState(total: storedTotal, time: start, localDay: Int64((Int(start) + offset) / 86_400)) : nil
    var tracker = StepCountTracker(stored: stored)
    var total = storedTotal
    var time = start
    var counted: UInt64 = 0
    var bound: UInt64 = 0
    var exact = stored != nil
    var previous: UInt32? = stored?.total
    var jump: Int64 = 0
    var jumped = false
    /// The watch's count restarted since the last reading.
    var restarted = false
    var watchDay = (Int64(start) + Int64(offset)) / 86_400
    var index = 6
    while index + 6 <= bytes.count {
        let op = bytes[index]
        let walked = UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
        let seconds = UInt32(bytes[index + 3]) << 16 | UInt32(bytes[index + 4]) << 8 | UInt32(bytes[index + 5])
        index += 6
        time &+= seconds % 100_000
        switch op % 8 {
        case 0:
            tracker.reconnected()
            continue
        case 1:
            total = walked % 50
            restarted = true
            exact = false
            continue
        case 2:
            jump = Int64(walked) * 2 - 65_535
            jumped = true
            exact = false
            continue
        default:
            break
        }
        let trueDay = (Int64(time) + Int64(offset)) / 86_400
        if trueDay != watchDay {
            // Local midnight on the watch: the count restarts.
            watchDay = trueDay
            total = 0
            restarted = true
            exact = false
        }
        total &+= walked
        let readingTime = UInt32(clamping: Int64(time) + jump)
        let day = (Int64(readingTime) + Int64(offset)) / 86_400
        if day != (Int64(start) + Int64(offset)) / 86_400 { exact = false }
        // What the watch counted since the last reading: the rise, or everything since a restart.
        if let last = previous, !restarted, total >= last { bound += UInt64(total - last) } else { bound += UInt64(total) }
        if previous == nil { exact = false }
        restarted = false
        previous = total
        switch tracker.observe(total: total, at: readingTime, utcOffsetSeconds: offset) {
        case .baseline, .unchanged:
            break
        case .steps(let steps):
            precondition(steps > 0, "zero steps reported as steps")
            counted += UInt64(steps)
        case .gap(let steps, let from, let to, _):
            precondition(steps > 0 && from <= to, "gap of \(steps) from \(from) to \(to)")
            counted += UInt64(steps)
        }
        precondition(tracker.last?.total == total && tracker.last?.time == readingTime, "the state is not the last reading")
    }
    precondition(jumped || counted <= bound, "counted \(counted) steps, the watch counted at most \(bound)")
    if exact, let first = stored?.total, previous != nil {
        precondition(counted == UInt64(total - first), "counted \(counted), the total grew by \(total - first)")
    }
    return 0
}
