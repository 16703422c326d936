import BandFirmware
import BandFirmwareCore
import ChipRuntime
import Testing
import UARTFraming

/// `bandsim serve --firmware … --fault drop=P --fault corrupt=P`: the host sends the rates as link
/// message 0x13 before 0x10, and the chip's band — the same ``BandServices`` with the same fault
/// stream as the Linux band — drops and corrupts exactly the notifications a Linux band with the
/// same seed and faults would.
@Suite struct ChipBandFaultTests {
    /// Heart Rate, RSC, Current Time and Battery subscribed.
    static let subscriptions = ["12 1600 0100", "12 1a00 0100", "12 2200 0100", "12 2800 0100"]

    static func notifications(_ chip: inout ChipUnderFaults, seconds: Int) -> [[UInt8]] {
        for request in subscriptions { _ = chip.send(hex(request)) }
        return ChipUnderFaults.att(chip.advance(seconds: seconds))
    }

    @Test func dropAndCorruptActOnTheChipsNotificationsAsOnLinux() throws {
        let (band, reader) = try ChipUnderFaults.linuxBand(faults: [.drop(0.3), .corrupt(0.2)])
        var chip = ChipUnderFaults(bandFaults: BandFaultMessage.encode(.init(drop: 0.3, corrupt: 0.2)))
        for request in Self.subscriptions {
            try reader.send(hex(request))
            band.pump()
            #expect(chip.send(hex(request)) == (try ChipUnderFaults.drain(reader)), "request \(request)")
        }
        var onChip: [[UInt8]] = []
        for second in 1...120 {
            band.advance(by: .seconds(1))
            let linux = try ChipUnderFaults.drain(reader)
            let chipSecond = ChipUnderFaults.att(chip.advance(seconds: 1))
            #expect(chipSecond == linux, "second \(second)")
            onChip += chipSecond
        }
        // The faults really acted: fewer notifications than a chip without them, some altered.
        var clean = ChipUnderFaults()
        let cleanNotifications = Self.notifications(&clean, seconds: 120)
        #expect(onChip.count < cleanNotifications.count * 85 / 100, "\(onChip.count) of \(cleanNotifications.count) delivered at drop=0.3")
        #expect(onChip.contains { !cleanNotifications.contains($0) }, "a corrupted notification")
    }

    /// `--fault clock-drift=PPM` and `battery=PERCENT` reach the chip in 0x13 too: its clock runs
    /// fast by as much as the Linux band's, and its battery starts where the Linux band's does —
    /// at 5 %, where heart-rate measurement stops on both.
    @Test func clockDriftAndBatteryActOnTheChipAsOnLinux() throws {
        let (band, reader) = try ChipUnderFaults.linuxBand(faults: [.clockDrift(50_000), .battery(5)])
        var chip = ChipUnderFaults(bandFaults: BandFaultMessage.encode(.init(clockDriftPPM: 50_000, battery: 5)))
        let readBattery = hex("08 0100 ffff 192a"), readTime = hex("08 0100 ffff 2b2a")
        func linux(_ pdu: [UInt8]) throws -> [[UInt8]] {
            try reader.send(pdu)
            band.pump()
            return try ChipUnderFaults.drain(reader)
        }
        for request in Self.subscriptions { #expect(chip.send(hex(request)) == (try linux(hex(request))), "request \(request)") }
        let battery = chip.send(readBattery)
        #expect(battery == (try linux(readBattery)))
        #expect(battery.first?.last == 5, "the battery starts at 5 %: \(battery)")
        var onChip: [[UInt8]] = []
        for second in 1...200 {
            band.advance(by: .seconds(1))
            let chipSecond = ChipUnderFaults.att(chip.advance(seconds: 1))
            #expect(chipSecond == (try ChipUnderFaults.drain(reader)), "second \(second)")
            onChip += chipSecond
        }
        let time = chip.send(readTime)
        #expect(time == (try linux(readTime)))
        // The faults acted: 200 s at +5 % is 210 s on the band's clock, and no heart rate at 5 %.
        var clean = ChipUnderFaults()
        let cleanNotifications = Self.notifications(&clean, seconds: 200)
        let cleanTime = clean.send(readTime)
        func secondOfDay(_ response: [[UInt8]]) -> Int {
            let value = Array(response.first?.dropFirst(4) ?? [])   // 09, length, handle, Current Time
            return value.count >= 7 ? Int(value[4]) * 3600 + Int(value[5]) * 60 + Int(value[6]) : -1
        }
        #expect(secondOfDay(time) - secondOfDay(cleanTime) == 10, "the drifting clock gained 10 s in 200: \(time) vs \(cleanTime)")
        // Heart Rate Measurement notifications (value handle 0x0019) with a rate: flags bit 0 clear, a
        // uint8 bpm at byte 4 (the band sends no other format) — the clean band's carry 50–70 bpm.
        let measured = { (pdus: [[UInt8]]) in pdus.filter { $0.count >= 5 && $0[0] == 0x1B && $0[1] == 0x19 && $0[2] == 0x00 && $0[4] > 0 }.count }
        #expect(measured(cleanNotifications) > 100, "without the fault the band measures heart rate")
        #expect(measured(onChip) == 0, "at 5 % it does not")
    }

    @Test func ratesThatAreNotProbabilitiesOrComeTooLateChangeNothing() {
        let bodies: [[UInt8]] = [BandFaultMessage.encode(.init(drop: 1.5)), BandFaultMessage.encode(.init(corrupt: .nan)),
                                 BandFaultMessage.encode(.init(disconnect: -0.1)), Array(BandFaultMessage.encode(.init(drop: 1)).dropLast()),
                                 BandFaultMessage.encode(.init(clockDriftPPM: 100_001)), BandFaultMessage.encode(.init(clockDriftPPM: .infinity)),
                                 BandFaultMessage.encode(.init(battery: 101))]
        var clean = ChipUnderFaults()
        let expected = Self.notifications(&clean, seconds: 30)
        #expect(!expected.isEmpty)
        for body in bodies {
            #expect(body.withUnsafeBytes { BandFaultMessage.decode($0) } == nil, "\(body)")
            var refused = ChipUnderFaults(bandFaults: body)
            #expect(Self.notifications(&refused, seconds: 30) == expected, "refused: the band runs without faults")
        }
        // After 0x10 the services are built: a late 0x13 changes nothing.
        var late = ChipUnderFaults()
        _ = late.deliver(.link, [0x13] + BandFaultMessage.encode(.init(drop: 1)))
        #expect(Self.notifications(&late, seconds: 30) == expected)
        // Drop everything: nothing is delivered.
        var silent = ChipUnderFaults(bandFaults: BandFaultMessage.encode(.init(drop: 1)))
        #expect(Self.notifications(&silent, seconds: 30).isEmpty)
    }
}
