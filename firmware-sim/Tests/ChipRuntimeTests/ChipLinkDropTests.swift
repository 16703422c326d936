import BandFirmwareCore
import ChipRuntime
import Testing
import UARTFraming

/// The chip's band drops a reader's link itself (an indication queue overflow, no entropy, a
/// fault injection — here `disconnect-random=1` through link 0x13, and the band's own
/// `disconnect` for each reason). The chip cannot close the host's link, so it tells the host with
/// link message 0x89 (the link's number: the count of 0x02 since boot; the reason), after the
/// frames it sent before the drop, and serves nothing until the next 0x02. A link the host ends
/// (0x03, or 0x02 over a live one) is never reported back.
@Suite struct ChipLinkDropTests {
    /// `disconnect-random=1` (link 0x13): the band drops the link after every PDU it sends.
    static let dropAfterEverySend = BandFaultMessage.encode(.init(disconnect: 1))

    @Test func aLinkTheBandDropsIsReportedOnceAfterWhatItSentBefore() {
        var chip = ChipUnderFaults(bandFaults: Self.dropAfterEverySend)   // configured, then 0x02: link 1
        let first = chip.deliver(.att, hex("0a 0300"))
        #expect(first.map(\.channel) == [UARTChannel.att.rawValue, UARTChannel.link.rawValue], "the answer, then the report: \(first)")
        #expect(first.first?.payload.first == 0x0B)
        #expect(ChipUnderFaults.linkDropped(first) == [[0x89, 1, 0, 0, 0, 4]], "link 1, reason 4 (a fault injection)")
        // The dropped link is served no more, and reported once.
        let after = chip.deliver(.att, hex("0a 0300"))
        #expect(ChipUnderFaults.att(after).isEmpty && ChipUnderFaults.linkDropped(after).isEmpty, "\(after)")
        let ticking = chip.advance(seconds: 5)
        #expect(ChipUnderFaults.linkDropped(ticking).isEmpty && ChipUnderFaults.att(ticking).isEmpty,
                "no notification on a dropped link, no second report")
        // The host connects the reader again: link 2, served from a fresh ATT state — and dropped again.
        #expect(chip.deliver(.link, [0x02]).isEmpty)
        let again = chip.deliver(.att, hex("0a 0300"))
        #expect(again.first?.payload.first == 0x0B, "the new link is served: \(again)")
        #expect(ChipUnderFaults.linkDropped(again) == [[0x89, 2, 0, 0, 0, 4]])
    }

    @Test("Each reason the band drops a link for has its code", arguments: [
        (BandDisconnectReason.indicationOverflow, UInt8(1)), (.noEntropy, 2), (.sendFailed, 3), (.faultAt, 4), (.faultMidHistory(packets: 3), 4), (.rebooted, 5),
    ])
    func reasonCodes(reason: BandDisconnectReason, code: UInt8) throws {
        var chip = ChipUnderFaults()
        let services = try #require(chip.firmware.application.services)
        services.disconnect(reason)
        chip.firmware.poll()
        #expect(ChipUnderFaults.linkDropped(chip.frames()) == [[0x89, 1, 0, 0, 0, code]])
    }

    @Test func aLinkTheHostEndsIsNeverReportedBack() throws {
        var chip = ChipUnderFaults()
        #expect(ChipUnderFaults.linkDropped(chip.deliver(.link, [0x03])).isEmpty, "0x03: the host knows")
        #expect(ChipUnderFaults.linkDropped(chip.deliver(.link, [0x02])).isEmpty, "link 2")
        #expect(ChipUnderFaults.linkDropped(chip.deliver(.link, [0x02])).isEmpty, "0x02 over a live link: replaced on the host's word, link 3")
        let services = try #require(chip.firmware.application.services)
        services.disconnect(.indicationOverflow)
        chip.firmware.poll()
        #expect(ChipUnderFaults.linkDropped(chip.frames()) == [[0x89, 3, 0, 0, 0, 1]], "the drop names link 3")
    }

    @Test func aReaderThatConnectedBeforeTheBandStartedIsLinkOne() {
        var chip = ChipUnderFaults(bandFaults: Self.dropAfterEverySend, connectFirst: true)
        #expect(ChipUnderFaults.linkDropped(chip.deliver(.att, hex("0a 0300"))) == [[0x89, 1, 0, 0, 0, 4]])
    }
}
