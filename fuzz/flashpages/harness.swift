// libFuzzer harness for the chip's flash recovery (BandFirmwareCore's FlashMinuteLog and
// FlashStateLog over FirmwareBoard's page map) and the scenario segment message
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
//     does not is damaged), and it holds at most the ring's capacity (1,440);
//  3. three records appended after the recovery come back, byte for byte, after a second
//     recovery, which numbers on from them; the run still has no holes;
//  4. a state written after the recovery is the state recovered next (keys ≤ 4);
//  5. a segment body that decodes re-encodes to a body that decodes to the same segment; a fault
//     body that decodes holds probabilities and re-encodes to the same bytes.
import BandFirmwareCore
import BandProtocol
import BandWire
import FirmwareBoard

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

let capacity = 1_440

/// The ring's records by sequence number (the last written wins, as in the band's rebuild).
func ring(_ board: inout MemoryBoard) -> (log: FlashMinuteLog, oldest: UInt32, records: [UInt32: [UInt8]]) {
    var log = FlashMinuteLog(pageSize: 4096)
    log.recover(on: &board)
    let oldest = log.oldest(capacity: capacity, acknowledged: 0)
    precondition(oldest <= log.next && Int(log.next - oldest) <= capacity, "ring \(oldest)..<\(log.next)")
    var records: [UInt32: [UInt8]] = [:]
    log.forEachRecord(on: &board) { sequence, bytes in
        if sequence >= oldest, sequence < log.next { records[sequence] = Array(bytes) }
    }
    precondition(records.count == Int(log.next - oldest), "the run \(oldest)..<\(log.next) has holes (\(records.count) records)")
    for (sequence, bytes) in records {
        let parses = bytes.withUnsafeBytes { raw -> Bool in
            do throws(ParseError) { _ = try MinuteRecord(parsingAll: raw); return true } catch { return false }
        }
        precondition(parses, "record \(sequence) in the ring does not parse")
    }
    return (log, oldest, records)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFlashPages(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size)
    var board = MemoryBoard(flash: [UInt8](repeating: 0xFF, count: FlashLayout.pageCount * 4096))
    var item = 0
    while item + 25 <= input.count {
        let page = FlashLayout.statePages.lowerBound + Int(input[item]) % 12
        let offset = page * 4096 + Int(input[item]) / 12 * 24
        for index in 0..<24 { board.flash[offset + index] &= input[item + 1 + index] }
        item += 25
    }

    var first = ring(&board)
    // Minute records that parse (the ring keeps no other), different for each input.
    let appended: [[UInt8]] = (0..<3).map { n in
        MinuteRecord(minuteStart: (first.log.next &+ UInt32(n)) % 50_000_000 &* 60, utcOffset: LocalTimeOffset(quarterHours: 0), flags: .worn,
                     steps: UInt16(truncatingIfNeeded: Int(first.log.next) &+ n &* 37), distanceDecimetres: 0, energyDecikilocalories: 0,
                     heartRate: nil).encodedBytes()
    }
    let next = first.log.next
    for (n, record) in appended.enumerated() {
        record.withUnsafeBytes { first.log.append(next &+ UInt32(n), $0, on: &board) }
    }
    let second = ring(&board)
    precondition(second.log.next == next &+ 3, "next \(second.log.next) after appending 3 at \(next)")
    for (n, record) in appended.enumerated() {
        precondition(second.records[next &+ UInt32(n)] == record, "appended record \(next &+ UInt32(n)) did not come back")
    }

    var state = FlashStateLog(pageSize: 4096)
    let recovered = state.recover(on: &board)
    precondition(recovered.keys.count <= KeyStore.slotCount)
    let written = FlashStateLog.State(acknowledgedThrough: next, keys: recovered.keys.reversed())
    state.write(written, on: &board)
    var again = FlashStateLog(pageSize: 4096)
    precondition(again.recover(on: &board) == written, "the state written is not the state recovered")

    if input.count >= ScenarioSegmentMessage.byteCount, let message = ScenarioSegmentMessage.decode(UnsafeRawBufferPointer(rebasing: input[0..<ScenarioSegmentMessage.byteCount])) {
        let body = ScenarioSegmentMessage.encode(message.segment, index: message.index, count: message.count)
        let decoded = body.withUnsafeBytes { ScenarioSegmentMessage.decode($0) }
        precondition(decoded?.segment == message.segment && decoded?.index == message.index && decoded?.count == message.count,
                     "segment round trip")
    }
    if input.count >= BandFaultMessage.byteCount,
       let rates = BandFaultMessage.decode(UnsafeRawBufferPointer(rebasing: input[0..<BandFaultMessage.byteCount])) {
        precondition([rates.drop, rates.corrupt, rates.disconnect].allSatisfy { $0 >= 0 && $0 <= 1 }, "rates \(rates)")
        precondition(BandFaultMessage.encode(rates) == Array(input[0..<BandFaultMessage.byteCount]), "fault body round trip")
    }
    return 0
}
