import BandFirmwareCore
import BandProtocol
import FirmwareBoard
import Testing
import UARTFraming

/// The chip's band drops a reader's link itself (an indication queue overflow, no entropy, a
/// fault injection — here `disconnect-random=1` through link 0x13, and the band's own
/// `disconnect` for each reason). The chip cannot close the host's
/// link, so it tells the host with link message 0x89 (the link's number: the count of 0x02 since
/// boot; the reason), after the frames it sent before the drop, and serves nothing until the next
/// 0x02. A link the host ends (0x03, or 0x02 over a live one) is never reported back.
@Suite struct ChipLinkDropTests {
    /// Everything the firmware sent since the last call, as (channel, payload).
    static func frames(_ chip: inout ChipBandServiceTests.Chip) -> [Frame] {
        var frames: [Frame] = []
        var decoder = UARTFrameDecoder()
        chip.firmware.board.outbound.withUnsafeBytes { raw in
            decoder.decode(raw) { channel, payload in frames.append(Frame(channel: channel.rawValue, payload: Array(payload))) }
        }
        chip.firmware.board.outbound.removeAll()
        return frames
    }

    static func deliver(_ chip: inout ChipBandServiceTests.Chip, _ channel: UARTChannel, _ payload: [UInt8]) -> [Frame] {
        chip.firmware.board.inbound = encodeFrame(channel, payload)
        chip.firmware.poll()
        return frames(&chip)
    }

    static func linkDropped(_ frames: [Frame]) -> [Frame] {
        frames.filter { $0.channel == UARTChannel.link.rawValue && $0.payload.first == 0x89 }
    }

    /// `disconnect-random=1` (link 0x13): the band drops the link after every PDU it sends.
    static let dropAfterEverySend = BandFaultMessage.encode(.init(disconnect: 1))

    @Test func aLinkTheBandDropsIsReportedOnceAfterWhatItSentBefore() {
        var chip = ChipBandServiceTests.Chip(bandFaults: Self.dropAfterEverySend)   // configured, then 0x02: link 1
        let first = Self.deliver(&chip, .att, hex("0a 0300"))
        #expect(first.map(\.channel) == [UARTChannel.att.rawValue, UARTChannel.link.rawValue], "the answer, then the report: \(first)")
        #expect(first.first?.payload.first == 0x0B)
        #expect(Self.linkDropped(first).map(\.payload) == [[0x89, 1, 0, 0, 0, 4]], "link 1, reason 4 (a fault injection)")
        // The dropped link is served no more, and reported once.
        let after = Self.deliver(&chip, .att, hex("0a 0300"))
        #expect(!after.contains { $0.channel == UARTChannel.att.rawValue } && Self.linkDropped(after).isEmpty, "\(after)")
        for _ in 0..<5 {
            chip.firmware.board.now += 1_000
            chip.firmware.poll()
        }
        let ticking = Self.frames(&chip)
        #expect(Self.linkDropped(ticking).isEmpty && !ticking.contains { $0.channel == UARTChannel.att.rawValue },
                "no notification on a dropped link, no second report")
        // The host connects the reader again: link 2, served from a fresh ATT state — and dropped again.
        #expect(Self.deliver(&chip, .link, [0x02]).isEmpty)
        let again = Self.deliver(&chip, .att, hex("0a 0300"))
        #expect(again.first?.payload.first == 0x0B, "the new link is served: \(again)")
        #expect(Self.linkDropped(again).map(\.payload) == [[0x89, 2, 0, 0, 0, 4]])
    }

    @Test("Each reason the band drops a link for has its code", arguments: [
        (BandDisconnectReason.indicationOverflow, UInt8(1)), (.noEntropy, 2), (.sendFailed, 3), (.faultAt, 4), (.faultMidHistory(packets: 3), 4), (.rebooted, 5),
    ])
    func reasonCodes(reason: BandDisconnectReason, code: UInt8) throws {
        var chip = ChipBandServiceTests.Chip()
        let services = try #require(chip.firmware.application.services)
        services.disconnect(reason)
        chip.firmware.poll()
        #expect(Self.linkDropped(Self.frames(&chip)).map(\.payload) == [[0x89, 1, 0, 0, 0, code]])
    }

    @Test func aLinkTheHostEndsIsNeverReportedBack() throws {
        var chip = ChipBandServiceTests.Chip()
        #expect(Self.linkDropped(Self.deliver(&chip, .link, [0x03])).isEmpty, "0x03: the host knows")
        #expect(Self.linkDropped(Self.deliver(&chip, .link, [0x02])).isEmpty, "link 2")
        #expect(Self.linkDropped(Self.deliver(&chip, .link, [0x02])).isEmpty, "0x02 over a live link: replaced on the host's word, link 3")
        let services = try #require(chip.firmware.application.services)
        services.disconnect(.indicationOverflow)
        chip.firmware.poll()
        #expect(Self.linkDropped(Self.frames(&chip)).map(\.payload) == [[0x89, 3, 0, 0, 0, 1]], "the drop names link 3")
    }

    @Test func aReaderThatConnectedBeforeTheBandStartedIsLinkOne() {
        var chip = ChipBandServiceTests.Chip(connectFirst: true, bandFaults: Self.dropAfterEverySend)
        #expect(Self.linkDropped(Self.deliver(&chip, .att, hex("0a 0300"))).map(\.payload) == [[0x89, 1, 0, 0, 0, 4]])
    }
}
