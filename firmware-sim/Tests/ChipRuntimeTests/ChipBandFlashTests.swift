import BandFirmwareCore
import BandProtocol
import ChipRuntime
import Testing
import UARTFraming

/// The chip's band across resets: its minutes go to flash pages before they are reported, and the
/// next boot rebuilds the ring from them, with the boot record's count as the band's boot epoch.
@Suite struct ChipBandFlashTests {
    /// A reset: the same flash, everything else fresh (RAM, the board's clock, the UART).
    static func reset(_ board: ScriptedBoard) -> FirmwareRuntime<ScriptedBoard, ChipBand> {
        var fresh = ScriptedBoard()
        fresh.flash = board.flash
        var firmware = FirmwareRuntime(board: fresh, application: ChipBand())
        firmware.start()
        return firmware
    }

    static func frames(_ firmware: inout FirmwareRuntime<ScriptedBoard, ChipBand>) -> [Frame] {
        var frames: [Frame] = []
        var decoder = UARTFrameDecoder()
        firmware.board.outbound.withUnsafeBytes { raw in
            decoder.decode(raw) { channel, payload in frames.append(Frame(channel: channel.rawValue, payload: Array(payload))) }
        }
        firmware.board.outbound.removeAll()
        return frames
    }

    static func run(_ firmware: inout FirmwareRuntime<ScriptedBoard, ChipBand>, start: BandInstant, minutes: Int) -> [Frame] {
        firmware.board.inbound = encodeFrame(.link, ChipBandTests.configure(start: start, seed: 7, zone: 4))
        firmware.poll()
        for _ in 0..<(minutes * 60 / 5) {
            firmware.board.now += 5_000
            firmware.poll()
        }
        return frames(&firmware)
    }

    static func report(_ frames: [Frame]) -> [UInt32]? {
        guard let body = frames.first(where: { $0.channel == UARTChannel.debug.rawValue && $0.payload.first == 0x86 })?.payload.dropFirst(),
              body.count == 24 else { return nil }
        let bytes = Array(body)
        return (0..<5).map { field in (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[field * 4 + $1]) << UInt32(8 * $1) } }
    }

    /// The flash report's first five fields, and its sixth: the newest record's minute start.
    static func reportAndNewest(_ frames: [Frame]) -> ([UInt32], UInt32)? {
        guard let body = frames.first(where: { $0.channel == UARTChannel.debug.rawValue && $0.payload.first == 0x86 })?.payload.dropFirst(),
              body.count == 24, let fields = report(frames) else { return nil }
        let bytes = Array(body)
        return (fields, (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[20 + $1]) << UInt32(8 * $1) })
    }

    @Test("After a reset the ring holds the minutes recorded before it, and the sequence numbers go on")
    func theRingSurvivesAReset() throws {
        var first = FirmwareRuntime(board: ScriptedBoard(), application: ChipBand())
        first.start()
        let firstReport = Self.reportAndNewest(Self.frames(&first))
        #expect(firstReport?.0 == [1, 0, 0, 0, 0] && firstReport?.1 == 0, "boot 1 on erased flash: nothing recovered, no newest minute")
        let before = try ChipBandTests.minutes(in: Self.run(&first, start: ChipBandTests.start, minutes: 40))
        #expect(before.count >= 39 && before.map(\.0) == Array(0..<UInt32(before.count)))

        var second = Self.reset(first.board)
        let count = UInt32(before.count)
        let secondReport = Self.reportAndNewest(Self.frames(&second))
        #expect(secondReport?.0 == [2, 0, count, 0, count], "boot 2: every minute recovered, the next number after them")
        #expect(secondReport?.1 == before.last?.1.minuteStart, "the newest record's minute start, for the host to resume after")
        let after = try ChipBandTests.minutes(in: Self.run(&second, start: ChipBandTests.start + .seconds(3_600), minutes: 20))
        #expect(after.first?.0 == count, "the first minute after the reset continues the numbering")
        #expect(after.map(\.0) == Array(count..<count + UInt32(after.count)), "no number twice, none skipped")

        let core = try #require(second.application.core)
        #expect(core.bootEpoch == 2, "the band's boot epoch is the boot record's count")
        #expect(core.flash.ring.oldest == 0 && core.flash.ring.next == count + UInt32(after.count))
        for (sequence, record) in before + after { #expect(core.flash.ring.record(sequence) == record, "minute \(sequence)") }

        // A third boot sees both runs.
        var third = Self.reset(second.board)
        let total = count + UInt32(after.count)
        #expect(Self.report(Self.frames(&third)) == [3, 0, total, 0, total])
    }

    @Test("A reset in the middle of writing a minute loses at most that minute; the ring and numbering go on",
          arguments: Array(0...24))
    func aResetMidRecordLosesAtMostThatRecord(budget: Int) throws {
        var first = FirmwareRuntime(board: ScriptedBoard(), application: ChipBand())
        first.start()
        let before = try ChipBandTests.minutes(in: Self.run(&first, start: ChipBandTests.start, minutes: 10))
        // The next minute's write is cut after `budget` bytes.
        first.board.flashByteBudget = budget
        first.board.now += 60_000
        first.poll()
        let cut = try ChipBandTests.minutes(in: Self.frames(&first))
        #expect(cut.count == 1)
        var second = Self.reset(first.board)
        let report = try #require(Self.report(Self.frames(&second)))
        let kept = UInt32(before.count) + (budget >= 24 ? 1 : 0)
        #expect(report[2] == kept && report[4] == kept, "budget \(budget)")
        #expect(report[3] == (budget == 0 || budget >= 24 ? 0 : 1), "a cut record is a damaged slot, counted")
        let after = try ChipBandTests.minutes(in: Self.run(&second, start: ChipBandTests.start + .seconds(3_600), minutes: 5))
        #expect(after.first?.0 == kept)
        let core = try #require(second.application.core)
        for (sequence, record) in before { #expect(core.flash.ring.record(sequence) == record) }
    }

    @Test("A minute in flash whose CRC matches but which does not parse: counted at boot, never held or served, no trap")
    func anUnparseableMinuteIsRecoveredLikeADamagedOne() throws {
        var first = FirmwareRuntime(board: ScriptedBoard(), application: ChipBand())
        first.start()
        _ = Self.frames(&first)
        let before = try ChipBandTests.minutes(in: Self.run(&first, start: ChipBandTests.start, minutes: 40))
        let count = UInt32(before.count)
        #expect(count >= 39)
        // Minute 20's slot: its minute start moved off the minute, under a CRC that matches.
        var board = first.board
        let at = FlashMinuteLogTests.slotOffset(20)
        var content = Array(board.flash[(at + 4)..<(at + 20)])
        content[0] &+= 1
        FlashMinuteLogTests.programSealed(20, content, on: &board)

        var second = Self.reset(board)
        #expect(Self.report(Self.frames(&second)) == [2, 0, count - 21, 1, count],
                "boot 2: the slot counted as damaged, the ring restarts after it, numbering goes on")
        let after = try ChipBandTests.minutes(in: Self.run(&second, start: ChipBandTests.start + .seconds(3_600), minutes: 5))
        #expect(after.first?.0 == count)
        let services = try #require(second.application.services)
        #expect(services.flash.ring.oldest == 21 && services.flash.ring.next == count + UInt32(after.count))
        var held: [UInt32: MinuteRecord] = [:]
        services.forEachStoredRecord { sequence, record in held[sequence] = record }
        #expect(held.count == Int(services.flash.ring.next - 21), "every record the ring holds decodes")
        for (sequence, record) in before + after where sequence >= 21 { #expect(held[sequence] == record, "minute \(sequence)") }

        // A third boot: the damaged slot is still counted (its page is not erased yet), nothing else.
        var third = Self.reset(second.board)
        let total = count + UInt32(after.count)
        #expect(Self.report(Self.frames(&third)) == [3, 0, total - 21, 1, total])
    }
}
