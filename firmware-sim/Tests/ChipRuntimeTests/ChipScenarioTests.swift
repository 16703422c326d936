import BandFirmware
import BandProtocol
import ChipRuntime
import Testing
import UARTFraming

/// The chip runs the scenario the host sends (link 0x12, ``ScenarioSegmentMessage``), the one the
/// Linux band would run from the same file: the same minute records, byte for byte.
@Suite struct ChipScenarioTests {
    static let weekend = """
        at 00:00 sleep
        at 08:30 desk
        at 09:15 walk cadence=100
        at 09:30 run cadence=168 stride=1.18
        at 10:45 walk cadence=95
        at 11:00 not-worn
        at 11:20 desk
        """
    static let start = BandInstant(seconds: CivilTime(year: 2026, month: 11, day: 30, hour: 8, minute: 10, second: 0).unixSeconds)

    static func segmentMessages(_ scenario: Scenario) -> [[UInt8]] {
        scenario.segments.enumerated().map { [0x12] + ScenarioSegmentMessage.encode($1, index: $0, count: scenario.segments.count) }
    }

    @Test func segmentsRoundTripWithAndWithoutCadenceAndStride() throws {
        for segment in try ScenarioParser.parse(Self.weekend, name: "weekend").segments {
            let body = ScenarioSegmentMessage.encode(segment, index: 2, count: 7)
            #expect(body.count == ScenarioSegmentMessage.byteCount)
            let decoded = try #require(body.withUnsafeBytes { ScenarioSegmentMessage.decode($0) })
            #expect(decoded.index == 2 && decoded.count == 7 && decoded.segment == segment)
        }
    }

    @Test("Bodies out of range are refused", arguments: [
        (1, UInt8(2)),      // index 2 of count 2
        (1, 0),              // index 0 of count 0 (index byte 0, count byte 0)
        (3, 0x05),           // activity 5
        (4, 0x04),           // unknown flag
        (2, 0xA0),           // start 0x05A0 = 1440 with byte 3 = 5
    ])
    func outOfRange(byte: Int, value: UInt8) {
        var body = ScenarioSegmentMessage.encode(ScenarioSegment(startMinute: 60, kind: .walk, cadence: 90), index: 0, count: 2)
        switch byte {
        case 1: body[0] = value == 2 ? 2 : 0; body[1] = value
        case 2: body[2] = value; body[3] = 5
        case 3: body[4] = value
        default: body[5] = value
        }
        #expect(body.withUnsafeBytes { ScenarioSegmentMessage.decode($0) } == nil)
        var nan = ScenarioSegmentMessage.encode(ScenarioSegment(startMinute: 60, kind: .walk, cadence: 90), index: 0, count: 1)
        for index in 6..<14 { nan[index] = 0xFF }
        #expect(nan.withUnsafeBytes { ScenarioSegmentMessage.decode($0) } == nil, "a NaN cadence")
        #expect([UInt8](repeating: 0, count: 21).withUnsafeBytes { ScenarioSegmentMessage.decode($0) } == nil)
    }

    @Test func theChipRunsTheHostsScenarioAsTheLinuxBandDoes() throws {
        let scenario = try ScenarioParser.parse(Self.weekend, name: "weekend")
        var configuration = BandConfiguration(start: Self.start)
        configuration.seed = 21
        configuration.timeZoneQuarterHours = 0
        configuration.scenario = scenario
        let band = try SimulatedBand(configuration: configuration)
        var linux: [(UInt32, MinuteRecord)] = []
        band.onMinuteRecorded = { linux.append(($0, $1)) }
        band.advance(by: .seconds(200 * 60))

        let run = ChipBandTests.runChip(seed: 21, zone: 0, minutes: 200, prelude: Self.segmentMessages(scenario),
                                        configure: ChipBandTests.configure(start: Self.start, seed: 21, zone: 0))
        let chip = try ChipBandTests.minutes(in: run.frames)
        #expect(chip.count >= 199 && linux.count >= 199)
        for index in 0..<min(chip.count, linux.count) {
            #expect(chip[index].0 == linux[index].0 && chip[index].1 == linux[index].1, "minute \(index)")
        }
        #expect(chip.contains { $0.1.activity == .running }, "the run at 09:30 is on the chip")
        #expect(!chip.filter { !$0.1.worn }.isEmpty, "and the band off at 11:00")
    }

    @Test("An incomplete, out-of-order or too large scenario starts nothing and says why")
    func refusedScenarios() throws {
        let segments = Self.segmentMessages(try ScenarioParser.parse(Self.weekend, name: "weekend"))
        var tooLarge = segments[0]
        tooLarge[2] = 33
        let cases: [([[UInt8]], String)] = [
            (Array(segments.dropLast()), "band configure: the scenario is incomplete or was refused; not started"),
            ([segments[0], segments[2]], "scenario segment: out of order; the scenario is refused"),
            ([tooLarge], "scenario segment: more segments than the chip holds (32); refused"),
        ]
        for (messages, said) in cases {
            let (frames, firmware) = ChipBandTests.runChip(seed: 21, zone: 0, minutes: 2, prelude: messages,
                                                           configure: ChipBandTests.configure(start: Self.start, seed: 21, zone: 0))
            let logs = frames.filter { $0.channel == UARTChannel.debug.rawValue && $0.payload.first == 0x84 }
                .map { String(decoding: $0.payload.dropFirst(), as: UTF8.self) }
            #expect(logs.contains(said), "\(logs)")
            #expect(firmware.application.core == nil && firmware.application.counters.ticks == 0)
        }
    }
}
