import BandFirmwareCore
import BandWire
import ChipRuntime
import Testing

/// The chip's minute ring in flash pages (``FlashMinuteLog``) on the scripted board's flash
/// (nRF52 semantics: erase → 0xFF, programming only clears bits): round trips across the wrap,
/// a power cut at every write, damage at every byte of a record.
@Suite struct FlashMinuteLogTests {
    static let capacity = 1_440

    static func append(_ sequences: Range<UInt32>, to log: inout FlashMinuteLog, on board: inout ScriptedBoard) {
        for sequence in sequences {
            record(sequence).withUnsafeBytes { log.append(sequence, $0, on: &board) }
        }
    }

    /// What a fresh boot recovers: the log, and every record in the ring's range by sequence.
    static func recover(_ board: inout ScriptedBoard, acknowledged: UInt32 = 0) -> (log: FlashMinuteLog, oldest: UInt32, records: [UInt32: [UInt8]]) {
        var log = FlashMinuteLog(pageSize: 4096)
        log.recover(on: &board)
        let oldest = log.oldest(capacity: capacity, acknowledged: acknowledged)
        var records: [UInt32: [UInt8]] = [:]
        log.forEachRecord(on: &board) { sequence, bytes in
            if sequence >= oldest, sequence < log.next { records[sequence] = Array(bytes) }
        }
        return (log, oldest, records)
    }

    static func written(_ count: UInt32) -> ScriptedBoard {
        var board = ScriptedBoard()
        var log = FlashMinuteLog(pageSize: 4096)
        log.recover(on: &board)
        append(0..<count, to: &log, on: &board)
        return board
    }

    @Test("Erased flash: an empty ring starting at sequence 0")
    func erasedFlashIsAnEmptyRing() {
        var board = ScriptedBoard()
        let found = Self.recover(&board)
        #expect(found.log.next == 0 && found.oldest == 0 && found.records.isEmpty && found.log.damagedSlots == 0)
    }

    @Test("Records round-trip through flash across the pages' wrap; the ring keeps the newest day", arguments: [UInt32(1), 170, 171, 1_440, 1_700, 1_701, 2_500, 5_000])
    func roundTripAcrossWrap(count: UInt32) {
        var board = Self.written(count)
        let found = Self.recover(&board)
        let expectedOldest = count > UInt32(Self.capacity) ? count - UInt32(Self.capacity) : 0
        #expect(found.log.next == count)
        #expect(found.oldest == expectedOldest)
        #expect(found.records.count == Int(count - expectedOldest))
        for sequence in expectedOldest..<count { #expect(found.records[sequence] == Self.record(sequence)) }
        #expect(found.log.damagedSlots == 0)
    }

    @Test("Writing goes on after a recovery as if nothing happened", arguments: [UInt32(100), 170, 1_699, 1_700, 3_000])
    func appendAfterRecovery(count: UInt32) {
        var board = Self.written(count)
        var log = Self.recover(&board).log
        Self.append(count..<(count + 400), to: &log, on: &board)
        let found = Self.recover(&board)
        #expect(found.log.next == count + 400)
        #expect(found.oldest == (count + 400 > 1_440 ? count + 400 - 1_440 : 0))
        #expect(found.records.count == Int(found.log.next - found.oldest))
        #expect(found.records.allSatisfy { $0.value == Self.record($0.key) })
    }

    @Test("Acknowledged records stay erased after a reset")
    func acknowledgedPositionBoundsTheRing() {
        var board = Self.written(300)
        let found = Self.recover(&board, acknowledged: 250)
        #expect(found.oldest == 250 && found.records.count == 50)
        #expect(Self.recover(&board, acknowledged: 400).oldest == 0, "a position past the end is not believed")
    }

    /// A reset cut the writes of records `count..<count+4` after `budget` bytes of erasing and
    /// programming. The records written completely before the cut are all there; at most the one
    /// being written is lost; the band goes on writing and nothing older is ever lost.
    @Test("A power cut at every write (mid record, mid page erase) loses at most the record being written",
          arguments: [UInt32(168), 1_698, 3_398])
    func powerCutAtEveryWrite(count: UInt32) {
        let before = Self.written(count)
        // Four records cross a page boundary: two slots, an erase of 4,096 bytes, two slots.
        var budgets = Array(0...48) + Array(stride(from: 49, to: 48 + 4_096, by: 37)) + Array((48 + 4_096)...(48 + 4_096 + 48))
        budgets.append(10_000)
        for budget in budgets {
            var board = before
            var log = Self.recover(&board).log
            board.flashByteBudget = budget
            Self.append(count..<(count + 4), to: &log, on: &board)
            board.flashByteBudget = nil
            let completed = budget >= 4_096 + 48 ? min(4, UInt32(2 + (budget - 4_096 - 48) / 24)) : UInt32(min(2, budget / 24))
            let found = Self.recover(&board)
            #expect(found.log.next == count + completed, "budget \(budget)")
            let oldest = count + completed > 1_440 ? count + completed - 1_440 : 0
            #expect(found.oldest == oldest, "budget \(budget)")
            #expect(found.records.count == Int(found.log.next - oldest), "budget \(budget)")
            #expect(found.records.allSatisfy { $0.value == Self.record($0.key) }, "budget \(budget)")
            // The band resumes: the next records follow on, and a second recovery sees them all.
            var resumed = found.log
            Self.append(found.log.next..<(found.log.next + 200), to: &resumed, on: &board)
            let again = Self.recover(&board)
            #expect(again.log.next == found.log.next + 200, "budget \(budget)")
            #expect(again.oldest == (again.log.next > 1_440 ? again.log.next - 1_440 : 0), "budget \(budget)")
            #expect(again.records.count == Int(again.log.next - again.oldest), "budget \(budget)")
            #expect(again.records.allSatisfy { $0.value == Self.record($0.key) }, "budget \(budget)")
        }
    }

    /// Ring pages start at page 4; slot `s` of the ring is at byte 4·4096 + 24·s when nothing wrapped.
    static func slotOffset(_ sequence: Int) -> Int { FlashLayout.ringPages.lowerBound * 4096 + (sequence / 170) * 4096 + (sequence % 170) * 24 }

    @Test("Damage at every byte of an older record: counted, the ring restarts after it, nothing served wrong")
    func damagedOlderRecord() {
        let clean = Self.written(400)
        for byte in 0..<24 {
            var board = clean
            board.flash[Self.slotOffset(200) + byte] ^= 0x04
            let found = Self.recover(&board)
            #expect(found.log.damagedSlots == 1, "byte \(byte)")
            #expect(found.log.next == 400 && found.oldest == 201, "byte \(byte)")
            #expect(found.records.allSatisfy { $0.value == Self.record($0.key) })
        }
    }

    @Test("Damage at every byte of the newest record: counted, the one before is the newest, its number reused")
    func damagedNewestRecord() {
        let clean = Self.written(400)
        for byte in 0..<24 {
            var board = clean
            board.flash[Self.slotOffset(399) + byte] ^= 0x80
            var found = Self.recover(&board)
            #expect(found.log.damagedSlots == 1 && found.log.next == 399 && found.oldest == 0, "byte \(byte)")
            Self.append(399..<420, to: &found.log, on: &board)
            let again = Self.recover(&board)
            #expect(again.log.next == 420 && again.oldest == 0 && again.records.count == 420, "byte \(byte)")
            #expect(again.records.allSatisfy { $0.value == Self.record($0.key) })
        }
    }

    @Test("A page of garbage is skipped and counted, never a trap; the next write over it erases it first")
    func garbagePage() {
        var board = Self.written(400)
        var random = Xoshiro256StarStar(seed: 12)
        let page = FlashLayout.ringPages.lowerBound + 5
        for index in 0..<4096 { board.flash[page * 4096 + index] = UInt8(truncatingIfNeeded: random.next()) }
        var found = Self.recover(&board)
        #expect(found.log.next == 400 && found.oldest == 0 && found.log.damagedSlots == 170)
        Self.append(400..<1_100, to: &found.log, on: &board)   // through page 5 and on
        let again = Self.recover(&board)
        #expect(again.log.next == 1_100 && again.oldest == 0 && again.log.damagedSlots == 0)
        #expect(again.records.allSatisfy { $0.value == Self.record($0.key) })
    }

    @Test("A whole record numbered 0xFFFFFFFF is damage: the numbering goes on from the real newest (found by fuzz/flashpages)")
    func recordNumberedLastIsDamage() {
        var board = Self.written(10)
        // Slot 10, after the last record: the right CRC over sequence number 0xFFFFFFFF. Trusted,
        // the next minute would be numbered 0 and lose to it at every recovery after.
        var forged = [UInt8](repeating: 0xFF, count: 24)
        for index in 4..<20 { forged[index] = UInt8(index) }
        var crc = CRC32()
        crc.update(forged[0..<20])
        for byte in 0..<4 { forged[20 + byte] = UInt8(truncatingIfNeeded: crc.value >> UInt32(8 * byte)) }
        for (index, byte) in forged.enumerated() { board.flash[Self.slotOffset(10) + index] = byte }

        var found = Self.recover(&board)
        #expect(found.log.next == 10 && found.oldest == 0 && found.records.count == 10 && found.log.damagedSlots == 1)
        Self.append(10..<13, to: &found.log, on: &board)
        let again = Self.recover(&board)
        #expect(again.log.next == 13 && again.records.count == 13)
        for sequence in UInt32(0)..<13 { #expect(again.records[sequence] == Self.record(sequence)) }
    }
}
