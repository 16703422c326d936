import BandFirmware
import BandProtocol
import ChipRuntime
import Testing
import UARTFraming

/// The band's logic as the chip runs it (``ChipBand`` in the firmware core, over the scripted
/// board) against the Linux band (`SimulatedBand`) with the same seed and start: the same minute
/// records, byte for byte, because both tick the one ``BandCore``.
@Suite struct ChipBandTests {
    static let start = BandInstant(seconds: CivilTime(year: 2026, month: 11, day: 30, hour: 6, minute: 20, second: 30).unixSeconds)

    /// Link message 0x10's body.
    static func configure(start: BandInstant, seed: UInt64, zone: Int8) -> [UInt8] {
        let seconds = UInt64(bitPattern: start.seconds)
        return [0x10] + (0..<8).map { UInt8(truncatingIfNeeded: seconds >> UInt64(8 * $0)) }
            + (0..<8).map { UInt8(truncatingIfNeeded: seed >> UInt64(8 * $0)) } + [UInt8(bitPattern: zone)]
    }

    /// Boots the firmware with ChipBand, sends it the `prelude` link messages (a scenario's
    /// segments), configures it, runs `minutes` band minutes in 7-second steps of the board clock
    /// and returns every frame it sent.
    static func runChip(seed: UInt64, zone: Int8, minutes: Int, prelude: [[UInt8]] = [], configure body: [UInt8]? = nil) -> (frames: [Frame], firmware: FirmwareRuntime<ScriptedBoard, ChipBand>) {
        var firmware = FirmwareRuntime(board: ScriptedBoard(), application: ChipBand())
        firmware.start()
        firmware.board.inbound = prelude.flatMap { encodeFrame(.link, $0) } + encodeFrame(.link, body ?? configure(start: start, seed: seed, zone: zone))
        firmware.poll()
        for _ in 0..<(minutes * 60 / 7) {
            firmware.board.now += 7_000
            firmware.poll()
        }
        var frames: [Frame] = []
        var decoder = UARTFrameDecoder()
        firmware.board.outbound.withUnsafeBytes { raw in
            decoder.decode(raw) { channel, payload in frames.append(Frame(channel: channel.rawValue, payload: Array(payload))) }
        }
        return (frames, firmware)
    }

    static func minutes(in frames: [Frame]) throws -> [(UInt32, MinuteRecord)] {
        try frames.filter { $0.channel == UARTChannel.debug.rawValue && $0.payload.first == 0x87 }.map { frame in
            #expect(frame.payload.count == 21)
            let sequence = frame.payload[1...4].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            return (sequence, try Array(frame.payload[5...]).withUnsafeBytes { raw in try MinuteRecord(parsingAll: raw) })
        }
    }

    @Test(arguments: [(UInt64(7), Int8(4)), (UInt64(0xDEAD_BEEF_0000_0001), Int8(-20))])
    func theChipRecordsWhatTheLinuxBandRecords(seed: UInt64, zone: Int8) throws {
        var configuration = BandConfiguration(start: Self.start)
        configuration.seed = seed
        configuration.timeZoneQuarterHours = zone
        let band = try SimulatedBand(configuration: configuration)
        var linux: [(UInt32, MinuteRecord)] = []
        band.onMinuteRecorded = { linux.append(($0, $1)) }
        band.advance(by: .seconds(180 * 60))

        let chip = try Self.minutes(in: Self.runChip(seed: seed, zone: zone, minutes: 180).frames)
        #expect(linux.count >= 179 && chip.count >= 179, "three hours of minutes on both")
        let common = min(linux.count, chip.count)
        for index in 0..<common {
            #expect(chip[index].0 == linux[index].0 && chip[index].1 == linux[index].1, "minute \(index)")
        }
        #expect(chip.first?.1.flags.contains(.partial) == true, "booted mid-minute: the first record is partial, as on Linux")
    }

    @Test func startUpEndsWithTheConfigurationSoItsAllocationsAreNotCountedAfterIt() throws {
        var firmware = FirmwareRuntime(board: ScriptedBoard(), application: ChipBand())
        firmware.start()   // baseline: the scripted board's 3 allocations
        firmware.board.allocations = 10   // what building the ring and the scenario took
        firmware.board.inbound = encodeFrame(.link, Self.configure(start: Self.start, seed: 7, zone: 0))
        firmware.poll()
        #expect(firmware.status().heapAllocationsAfterStartUp == 0, "the baseline is taken again after the configuration")
        firmware.board.allocations = 11
        #expect(firmware.status().heapAllocationsAfterStartUp == 1, "and anything later counts")
    }

    @Test func aSecondConfigurationIsRefusedAndTheBandRunsOn() throws {
        var (frames, firmware) = Self.runChip(seed: 7, zone: 0, minutes: 10)
        #expect(frames.contains(Frame(channel: UARTChannel.debug.rawValue, payload: [0x84] + Array("band started".utf8))))
        #expect(firmware.application.counters.ticks == 596 && firmware.application.counters.records == 10)
        firmware.board.outbound.removeAll()
        firmware.board.inbound = encodeFrame(.link, Self.configure(start: BandInstant(seconds: 0), seed: 8, zone: 0))
        firmware.poll()
        var decoder = UARTFrameDecoder()
        var replies: [Frame] = []
        firmware.board.outbound.withUnsafeBytes { raw in
            decoder.decode(raw) { channel, payload in replies.append(Frame(channel: channel.rawValue, payload: Array(payload))) }
        }
        #expect(replies == [Frame(channel: UARTChannel.debug.rawValue, payload: [0x84] + Array("band configure: already running (once per boot)".utf8))])
        firmware.board.now += 60_000
        firmware.poll()
        #expect(firmware.application.counters.ticks == 656, "the clock was not moved back to 1970")
    }

    @Test(arguments: [[UInt8](), [0x00], Array(repeating: 0, count: 16), Array(repeating: 0, count: 18)])
    func aConfigurationOfTheWrongLengthStartsNothing(body: [UInt8]) throws {
        let (frames, firmware) = Self.runChip(seed: 7, zone: 0, minutes: 3, configure: [0x10] + body)
        #expect(try Self.minutes(in: frames).isEmpty)
        #expect(firmware.application.counters.ticks == 0)
        #expect(frames.contains(Frame(channel: UARTChannel.debug.rawValue, payload: [0x84] + Array("band configure: not 17 bytes".utf8))))
    }

    @Test func aTimeZoneOutOfRangeStartsNothing() throws {
        let (frames, firmware) = Self.runChip(seed: 7, zone: 0, minutes: 3, configure: Self.configure(start: Self.start, seed: 7, zone: 57))
        #expect(try Self.minutes(in: frames).isEmpty && firmware.application.counters.ticks == 0)
    }

    @Test func theBandStatusMessageReportsTicksRecordsAndCycles() throws {
        var (_, firmware) = Self.runChip(seed: 7, zone: 0, minutes: 2)
        firmware.board.outbound.removeAll()
        firmware.board.inbound = encodeFrame(.link, [0x11])
        firmware.poll()
        var frames: [Frame] = []
        var decoder = UARTFrameDecoder()
        firmware.board.outbound.withUnsafeBytes { raw in
            decoder.decode(raw) { channel, payload in frames.append(Frame(channel: channel.rawValue, payload: Array(payload))) }
        }
        let status = try #require(frames.last { $0.payload.first == 0x88 })
        #expect(status.payload.count == 37)
        func word(_ offset: Int, _ size: Int) -> UInt64 {
            (0..<size).reduce(UInt64(0)) { $0 | UInt64(status.payload[1 + offset + $1]) << UInt64(8 * $1) }
        }
        #expect(word(0, 8) == 120, "ticks")
        #expect(word(8, 8) == 120 * 6400, "the scripted board's cycle counter moves 6400 per read")
        #expect(word(16, 4) == 2, "records")
        #expect(word(20, 8) == 2 * 6400)
        #expect(word(28, 8) == 2 * 6400, "flash writes, timed apart from the ticks")
    }
}
