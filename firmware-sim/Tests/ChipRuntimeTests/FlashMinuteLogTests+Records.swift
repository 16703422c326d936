import BandFirmwareCore
import BandProtocol
import BandWire
import ChipRuntime
import Testing

/// The records the log tests write, and the log's check of them: FlashMinuteLog keeps only slots
/// whose CRC matches *and* whose record parses, so the tests' records are minute records, and a
/// CRC-valid slot whose record does not parse is damage like a bad CRC.
extension FlashMinuteLogTests {
    /// Record `sequence`'s 16 stored bytes: a minute record that parses (the log checks that),
    /// different for every sequence number.
    static func record(_ sequence: UInt32) -> [UInt8] {
        let heartRate = sequence % 3 == 0 ? nil
            : HeartRateSummary(average: UInt8(60 + sequence % 50), minimum: UInt8(55 + sequence % 5), maximum: UInt8(110 + sequence % 40))
        let record = MinuteRecord(minuteStart: 1_800_000_000 + sequence &* 60, utcOffset: LocalTimeOffset(quarterHours: 4),
                                  flags: .worn, steps: UInt16(truncatingIfNeeded: sequence &* 31),
                                  distanceDecimetres: UInt16(truncatingIfNeeded: sequence &* 7), energyDecikilocalories: UInt16(sequence % 900),
                                  heartRate: heartRate)
        return record.encodedBytes()
    }

    /// Programs slot `sequence` (not wrapped) with `content`'s 16 bytes under a CRC that matches them.
    static func programSealed(_ sequence: Int, _ content: [UInt8], on board: inout ScriptedBoard) {
        var slot = Array(withUnsafeBytes(of: UInt32(sequence).littleEndian) { Array($0) }) + content
        var crc = CRC32()
        slot.withUnsafeBytes { crc.update($0) }
        slot += withUnsafeBytes(of: crc.value.littleEndian) { Array($0) }
        for (index, byte) in slot.enumerated() { board.flash[slotOffset(sequence) + index] = byte }
    }

    /// Record 200's bytes with one field a reader cannot accept, each under a matching CRC.
    static let unparseable: [(String, [UInt8])] = {
        let good = record(200)
        var offMinute = good; offMinute[0] &+= 1                            // minute start not on a minute
        var heartWithoutFlag = record(202); heartWithoutFlag[5] &= ~0x02    // heart-rate bytes, flag clear (202 has a heart rate)
        var heartInverted = record(202); heartInverted.swapAt(13, 14)   // min > max
        var sessionWithoutActivity = good; sessionWithoutActivity[5] |= 0x10  // session start, activity none
        return [("minute start", offMinute), ("heart-rate flag", heartWithoutFlag), ("heart-rate order", heartInverted),
                ("session start", sessionWithoutActivity), ("heart rate zero", [0, 0, 0, 0, 0, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])]
    }()

    @Test("A record whose CRC matches but which does not parse is damaged: counted, the ring restarts after it",
          arguments: unparseable.indices)
    func unparseableOlderRecord(which: Int) throws {
        let (what, content) = Self.unparseable[which]
        var failing: ParseError?
        content.withUnsafeBytes { raw in
            do throws(ParseError) { _ = try MinuteRecord(parsingAll: raw) } catch { failing = error }
        }
        #expect(failing != nil, "\(what): the test's record must not parse")
        var board = Self.written(400)
        Self.programSealed(200, content, on: &board)   // slot 200 holds sequence 200: the erase-free rewrite of a test
        let found = Self.recover(&board)
        #expect(found.log.damagedSlots == 1, "\(what)")
        #expect(found.log.next == 400 && found.oldest == 201, "\(what)")
        #expect(found.records[200] == nil && found.records.allSatisfy { $0.value == Self.record($0.key) }, "\(what)")
    }

    @Test("The newest record CRC-valid but unparseable: counted, the one before is the newest, its number reused")
    func unparseableNewestRecord() {
        var board = Self.written(400)
        var content = Self.record(399)
        content[0] &+= 7
        Self.programSealed(399, content, on: &board)
        var found = Self.recover(&board)
        #expect(found.log.damagedSlots == 1 && found.log.next == 399 && found.oldest == 0)
        Self.append(399..<420, to: &found.log, on: &board)
        let again = Self.recover(&board)
        #expect(again.log.next == 420 && again.oldest == 0 && again.records.count == 420)
        #expect(again.records.allSatisfy { $0.value == Self.record($0.key) })
    }
}
