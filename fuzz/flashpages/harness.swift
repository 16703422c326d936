// libFuzzer harness for the chip's flash recovery (BandFirmwareCore's FlashMinuteLog and
// FlashStateLog over ChipRuntime's page map) and the scenario segment message
// (ScenarioSegmentMessage). The input writes the flash in 25-byte items (so that inputs within
// libFuzzer's length reach every page): item byte 0 picks the page (2 + b % 12: the state pages
// 2–3 and the ring pages 4–13) and the 24-byte slot in it (b / 12), the other 24 bytes are
// programmed there; everything else stays erased (0xFF). The input's first 22 bytes are also
// decoded as a 0x12 body, its first 24 as a 0x13 body (BandFaultMessage).
//
// Properties checked on every input:
//  1. recovering the ring and the state never traps, whatever the pages hold;
//  2. the ring recovered is a run without holes: every sequence number in oldest..<next has a
//     valid record, every one of them a minute record that parses (a CRC-valid slot whose record
//     does not is damaged), and it holds at most the ring's capacity (198 for the 22-slot pages used here);
//  3. three records appended after the recovery come back, byte for byte, after a second
//     recovery, which numbers on from them; the run still has no holes;
//  4. a state written after the recovery is the state recovered next (keys ≤ 4);
//  5. a segment body that decodes re-encodes to a body that decodes to the same segment; a fault
//     body that decodes holds probabilities and re-encodes to the same bytes.
import BandFirmwareCore
import BandProtocol
import BandWire
import ChipRuntime
#if canImport(Glibc)
import Glibc
#endif

/// `precondition` without its message under -O; this says what broke in the fuzzer's log.
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    guard !condition() else { return }
    let line = Array("flashpages harness: \(message())\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    abort()
}

struct MemoryBoard: Board {
    var flash: [UInt8]
    mutating func uptimeMilliseconds() -> UInt64 { 0 }
    mutating func setBandSpeed(_ factor: UInt32) {}
    mutating func cycleCount() -> UInt64 { 0 }
    mutating func transmit(_ bytes: UnsafeRawBufferPointer) {}
    mutating func receiveByte() -> UInt8? { nil }
    mutating func waitForEvent() {}
    mutating func heapAllocationCount() -> UInt32 { 0 }
    mutating func stackHighWaterBytes() -> UInt32 { 0 }
    mutating func provokeFault() {}
    mutating func systemReset() {}
    var flashPageSize: Int { 4096 }
    var flashPageCount: Int { FlashLayout.pageCount }
    mutating func flashRead(page: Int, offset: Int, into output: UnsafeMutableRawBufferPointer) {
        let start = page * 4096 + offset
        flash.withUnsafeBytes { output.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[start..<(start + output.count)])) }
    }
    mutating func flashErase(page: Int) {
        flash.withUnsafeMutableBytes { _ = UnsafeMutableRawBufferPointer(rebasing: $0[(page * 4096)..<(page * 4096 + 4096)]).initializeMemory(as: UInt8.self, repeating: 0xFF) }
    }
    mutating func flashProgram(page: Int, offset: Int, _ bytes: UnsafeRawBufferPointer) {
        for index in 0..<bytes.count { flash[page * 4096 + offset + index] &= bytes[index] }
    }
}

/// The logs' page size here: 22 slots of 24 bytes, so that an item (page selector b: slot b / 12,
/// 0–21) can reach every slot of every page, wrap the ring and fill the state pages. The chip's
/// 4 KB pages hold 170 slots, of which inputs of libFuzzer's length reach the first 22 anyway,
/// and scanning the other 148 erased ones six times an input cost 8× the time.
let pageSize = 22 * FlashMinuteLog.slotByteCount
/// The ring's capacity for that page size: what the other nine of the ten ring pages hold,
/// the invariant the band's 1,440 ≤ 9 × 170 keeps (FlashMinuteLog's doc comment).
let capacity = 9 * 22
let recordBytes = 16

/// The ring's records, by their place in the run `oldest..<next`: one flat table (16 bytes a
/// record) and a seen flag per place, made once for the process and reused — a dictionary of
/// arrays per recovery cost more than the recovery itself under ASan.
struct RecoveredRing {
    var log = FlashMinuteLog(pageSize: pageSize)
    var oldest: UInt32 = 0
    var table = [UInt8](repeating: 0, count: capacity * recordBytes)
    var seen = [Bool](repeating: false, count: capacity)

    /// Recovers the ring from `board` and checks it is a run without holes of at most `capacity`
    /// records (the last written copy of a sequence number wins, as in the band's rebuild).
    mutating func recover(_ board: inout MemoryBoard) {
        log = FlashMinuteLog(pageSize: pageSize)
        log.recover(on: &board)
        oldest = log.oldest(capacity: capacity, acknowledged: 0)
        check(oldest <= log.next && Int(log.next - oldest) <= capacity, "ring \(oldest)..<\(log.next)")
        let count = Int(log.next - oldest)
        for index in 0..<count { seen[index] = false }
        var distinct = 0
        let (first, end, recovered) = (oldest, log.next, log)
        recovered.forEachRecord(on: &board) { sequence, bytes in
            guard sequence >= first, sequence < end else { return }
            check(bytes.count == recordBytes, "record \(sequence) is \(bytes.count) bytes")
            let place = Int(sequence - first)
            if !seen[place] { seen[place] = true; distinct += 1 }
            let parses: Bool
            do throws(ParseError) { _ = try MinuteRecord(parsingAll: bytes); parses = true } catch { parses = false }
            check(parses, "record \(sequence) in the ring does not parse")
            table.withUnsafeMutableBytes { $0.baseAddress!.advanced(by: place * recordBytes).copyMemory(from: bytes.baseAddress!, byteCount: recordBytes) }
        }
        check(distinct == count, "the run \(oldest)..<\(log.next) has holes (\(distinct) records)")
    }

    /// The record with sequence number `sequence`, if the run holds it.
    func record(_ sequence: UInt32) -> ArraySlice<UInt8>? {
        guard sequence >= oldest, sequence < log.next, seen[Int(sequence - oldest)] else { return nil }
        let place = Int(sequence - oldest) * recordBytes
        return table[place..<(place + recordBytes)]
    }
}

nonisolated(unsafe) var board = MemoryBoard(flash: [UInt8](repeating: 0xFF, count: FlashLayout.pageCount * 4096))
nonisolated(unsafe) var first = RecoveredRing()
nonisolated(unsafe) var second = RecoveredRing()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFlashPages(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size)
    // The same pages every input, erased again (all 0xFF) before the input's items are programmed.
    board.flash.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0xFF) }
    var item = 0
    while item + 25 <= input.count {
        let page = FlashLayout.statePages.lowerBound + Int(input[item]) % 12
        let offset = page * 4096 + Int(input[item]) / 12 * 24
        for index in 0..<24 { board.flash[offset + index] &= input[item + 1 + index] }
        item += 25
    }

    first.recover(&board)
    let next = first.log.next
    // Minute records that parse (the ring keeps no other), different for each input.
    let appended: [[UInt8]] = (0..<3).map { n in
        MinuteRecord(minuteStart: (next &+ UInt32(n)) % 50_000_000 &* 60, utcOffset: LocalTimeOffset(quarterHours: 0), flags: .worn,
                     steps: UInt16(truncatingIfNeeded: Int(next) &+ n &* 37), distanceDecimetres: 0, energyDecikilocalories: 0,
                     heartRate: nil).encodedBytes()
    }
    for n in 0..<3 {
        appended[n].withUnsafeBytes { first.log.append(next &+ UInt32(n), $0, on: &board) }
    }
    second.recover(&board)
    check(second.log.next == next &+ 3, "next \(second.log.next) after appending 3 at \(next)")
    for n in 0..<3 {
        check(second.record(next &+ UInt32(n)).map(Array.init) == appended[n], "appended record \(next &+ UInt32(n)) did not come back")
    }

    var state = FlashStateLog(pageSize: pageSize)
    let recovered = state.recover(on: &board)
    check(recovered.keys.count <= KeyStore.slotCount, "\(recovered.keys.count) keys recovered")
    let written = FlashStateLog.State(acknowledgedThrough: next, keys: recovered.keys.reversed())
    state.write(written, on: &board)
    var again = FlashStateLog(pageSize: pageSize)
    let back = again.recover(on: &board); check(back == written, "the state written is not the state recovered: \(written) vs \(back), recovered before \(recovered)")

    if input.count >= ScenarioSegmentMessage.byteCount, let message = ScenarioSegmentMessage.decode(UnsafeRawBufferPointer(rebasing: input[0..<ScenarioSegmentMessage.byteCount])) {
        let body = ScenarioSegmentMessage.encode(message.segment, index: message.index, count: message.count)
        let decoded = body.withUnsafeBytes { ScenarioSegmentMessage.decode($0) }
        check(decoded?.segment == message.segment && decoded?.index == message.index && decoded?.count == message.count,
                     "segment round trip")
    }
    if input.count >= BandFaultMessage.byteCount,
       let rates = BandFaultMessage.decode(UnsafeRawBufferPointer(rebasing: input[0..<BandFaultMessage.byteCount])) {
        check([rates.drop, rates.corrupt, rates.disconnect].allSatisfy { $0 >= 0 && $0 <= 1 }, "rates \(rates)")
        check(BandFaultMessage.encode(rates) == Array(input[0..<BandFaultMessage.byteCount]), "fault body round trip")
    }
    return 0
}
