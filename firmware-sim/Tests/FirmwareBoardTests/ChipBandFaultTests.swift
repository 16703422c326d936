import BandFirmware
import BandFirmwareCore
import FirmwareBoard
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

    @Test func ratesThatAreNotProbabilitiesOrComeTooLateChangeNothing() {
        let bodies: [[UInt8]] = [BandFaultMessage.encode(.init(drop: 1.5)), BandFaultMessage.encode(.init(corrupt: .nan)),
                                 BandFaultMessage.encode(.init(disconnect: -0.1)), Array(BandFaultMessage.encode(.init(drop: 1)).dropLast())]
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
