import BandFirmwareCore
import BandLEHost
import BandWire
import ChipRuntime
import Foundation
import Testing
import UARTFraming

/// The hosted band (``HostedBand``) on the scripted board: configured on the debug port, its BLE
/// host brought up on H4 once the band runs, the band's own table answering a central over ACL,
/// the band's minutes and the host's lines as frames on the debug port.
@Suite struct HostedBandTests {
    static let start: UInt64 = 1_796_025_600   // 2026-12-01T00:00:00Z

    /// The frames the debug port carried (the runtime's and the host's: on the MCU one UART1, on
    /// the scripted board two copies of the board).
    static func debugFrames(_ chip: inout HostedBand<ScriptedBoard>) -> [Frame] {
        var frames: [Frame] = []
        for bytes in [chip.runtime.board.base.debug, chip.io.bonds.board.debug] {
            var decoder = UARTFrameDecoder()
            bytes.withUnsafeBytes { raw in
                decoder.decode(raw) { channel, payload in frames.append(Frame(channel: channel.rawValue, payload: Array(payload))) }
            }
        }
        chip.runtime.board.base.debug.removeAll()
        chip.io.bonds.board.debug.removeAll()
        return frames
    }

    static func logLines(_ frames: [Frame]) -> [String] {
        frames.filter { $0.channel == UARTChannel.debug.rawValue && $0.payload.first == LinkMessage.log }
            .map { String(decoding: $0.payload.dropFirst(), as: UTF8.self) }
    }

    /// A band configured on the debug port (0x10) and its host brought up against the script.
    static func runningBand() -> HostedBand<ScriptedBoard> {
        var chip = HostedBand(board: ScriptedBoard())
        chip.start()
        chip.poll()
        #expect(chip.io.bonds.board.outbound.isEmpty, "the host must wait for the band to start")
        var configure = [LinkMessage.bandConfigure]
        for byte in 0..<8 { configure.append(UInt8(truncatingIfNeeded: start >> UInt64(8 * byte))) }
        for byte in 0..<8 { configure.append(UInt8(truncatingIfNeeded: UInt64(7) >> UInt64(8 * byte))) }
        configure.append(0)
        chip.runtime.board.base.debugInbound.append(contentsOf: encodeFrame(.link, configure))
        chip.poll()
        for step in HostedRuntimeTests.bringUp {
            let sent = HostedRuntimeTests.packets(chip.io.bonds.board.outbound)
            chip.io.bonds.board.outbound.removeAll()
            #expect(sent.count == 1 && sent.first.map { UInt16($0[1]) | UInt16($0[2]) << 8 } == step.opcode,
                    "expected command \(String(step.opcode, radix: 16)), the chip sent \(sent.map { Hex.encode($0) })")
            chip.io.bonds.board.inbound.append(contentsOf: hex(step.answer))
            chip.poll()
        }
        return chip
    }

    @Test("Configured on the debug port, the band starts its host and advertises")
    func startsOnConfiguration() {
        var chip = Self.runningBand()
        #expect(chip.host.phase == .running && chip.host.advertising)
        let frames = Self.debugFrames(&chip)
        #expect(frames.first == Frame(channel: UARTChannel.link.rawValue, payload: [LinkMessage.booted]))
        #expect(Self.logLines(frames) == [
            "band started",
            "hosted: BLE host on H4, 0 bond(s) in flash, 0 damaged slot(s)",
            "hosted: controller ready, address 112233445566, ACL 27 B x 4",
            "hosted: advertising",
        ])
    }

    @Test("The debug port serves no bring-up table, self-test or bench: the band's image carries none of them")
    func noBringUpServicesOnTheDebugPort() {
        var chip = HostedBand(board: ScriptedBoard())
        chip.start()
        _ = Self.debugFrames(&chip)
        chip.runtime.board.base.debugInbound.append(contentsOf: encodeFrame(.att, hex("0a 0300")))   // Read Request, before the band runs
        chip.runtime.board.base.debugInbound.append(contentsOf: encodeFrame(.link, [LinkMessage.selfTestRequest]))
        chip.runtime.board.base.debugInbound.append(contentsOf: encodeFrame(.link, [LinkMessage.benchRequest]))
        chip.poll()
        let frames = Self.debugFrames(&chip)
        #expect(Self.logLines(frames) == ["att: no bring-up table on this port", "link: unknown message", "link: unknown message"])
        #expect(frames.allSatisfy { $0.channel == UARTChannel.debug.rawValue && $0.payload.first == LinkMessage.log }, "\(frames)")
    }

    @Test("A central's Exchange MTU and read reach the band's own table over ACL; its minutes go to the debug port")
    func bandTableOverACL() {
        var chip = Self.runningBand()
        _ = Self.debugFrames(&chip)
        chip.io.bonds.board.inbound.append(contentsOf: hex("04 3e 13 01 00 40 00 01 01 66 55 44 33 22 11 18 00 00 00 48 00 00"))
        chip.io.bonds.board.inbound.append(contentsOf: hex("02 40 00 07 00 03 00 04 00 02 f7 00"))   // Exchange MTU 247
        chip.poll()
        let afterMTU = HostedRuntimeTests.packets(chip.io.bonds.board.outbound).map { Hex.encode($0) }
        #expect(afterMTU.contains(compactHex("02 40 00 07 00 03 00 04 00 03 f7 00")), "the band's MTU response: \(afterMTU)")
        chip.io.bonds.board.outbound.removeAll()
        chip.io.bonds.board.inbound.append(contentsOf: hex("04 13 05 01 40 00 01 00"))                 // its packet completed
        chip.io.bonds.board.inbound.append(contentsOf: hex("02 40 00 07 00 03 00 04 00 0a 03 00"))   // Read Device Name
        chip.poll()
        let afterRead = HostedRuntimeTests.packets(chip.io.bonds.board.outbound).map { Hex.encode($0) }
        #expect(afterRead.contains(compactHex("02 40 00 0f 00 0b 00 04 00 0b") + Hex.encode(Array(ChipBand.deviceName.utf8))),
                "the band's name over ACL: \(afterRead)")
        chip.runtime.board.base.now += 61_000
        chip.poll()
        let minutes = Self.debugFrames(&chip).filter { $0.channel == UARTChannel.debug.rawValue && $0.payload.first == LinkMessage.minuteRecorded }
        #expect(minutes.count == 1 && minutes.first.map { Array($0.payload[1..<5]) } == [0, 0, 0, 0])
        #expect(chip.runtime.status().heapAllocationsAfterStartUp == 0)
    }

    @Test("A link the band drops itself ends the radio link (HCI Disconnect)")
    func bandDropsLink() {
        var chip = Self.runningBand()
        chip.io.bonds.board.inbound.append(contentsOf: hex("04 3e 13 01 00 40 00 01 01 66 55 44 33 22 11 18 00 00 00 48 00 00"))
        chip.poll()
        chip.io.bonds.board.outbound.removeAll()
        chip.io.bonds.board.inbound.append(contentsOf: hex("04 0e 06 01 22 20 00 40 00"))   // LE Set Data Length done
        chip.runtime.board.linkDropRequested = true
        chip.poll()
        #expect(HostedRuntimeTests.packets(chip.io.bonds.board.outbound).map { Hex.encode($0) }.contains(compactHex("01 06 04 03 40 00 13")))
    }
}

/// The queue between the hosted band's host and its services.
@Suite struct PDUQueueTests {
    @Test("PDUs come out whole and in order across the region's end; one that does not fit is refused and counted")
    func fifo() {
        var queue = PDUQueue(capacity: 16)
        var out = [UInt8](repeating: 0, count: 16)
        for round in 0..<20 {
            let pdu = (0..<(round % 5 + 1)).map { UInt8(truncatingIfNeeded: round * 7 + $0) }
            #expect(pdu.withUnsafeBytes { queue.append($0) })
            let length = out.withUnsafeMutableBytes { queue.peek(into: $0) }
            #expect(length == pdu.count && Array(out.prefix(pdu.count)) == pdu)
            queue.removeFirst()
            #expect(queue.isEmpty && queue.usedBytes == 0)
        }
        #expect([UInt8](repeating: 1, count: 10).withUnsafeBytes { queue.append($0) })
        #expect(![UInt8](repeating: 2, count: 5).withUnsafeBytes { queue.append($0) })
        #expect(queue.refused == 1 && queue.count == 1)
        var small = [UInt8](repeating: 0, count: 4)
        #expect(small.withUnsafeMutableBytes { queue.peek(into: $0) } == nil, "an output too small for the PDU gets nothing")
        queue.removeAll()
        #expect(queue.isEmpty && queue.freeBytes == 16)
    }
}
