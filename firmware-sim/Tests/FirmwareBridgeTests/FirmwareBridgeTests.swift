import FirmwareBridge
import Testing
import UARTFraming

/// Conversations between a reader and the firmware's UART, through the bridge's decisions.
@Suite struct FirmwareBridgeTests {
    private func fromFirmware(_ bridge: inout FirmwareBridge, _ bytes: [UInt8]) -> [FirmwareBridge.Action] {
        bytes.withUnsafeBytes { bridge.received(fromFirmware: $0) }
    }

    @Test func connectRequestResponseDisconnect() {
        var bridge = FirmwareBridge()
        #expect(bridge.readerDidConnect() == [.toFirmware(FirmwareBridge.frame(.link, [0x02]))])
        #expect(bridge.received(fromReader: [0x0A, 0x03, 0x00]) == [.toFirmware(FirmwareBridge.frame(.att, [0x0A, 0x03, 0x00]))])
        let response: [UInt8] = [0x0B] + Array("BandKit M4".utf8)
        #expect(fromFirmware(&bridge, FirmwareBridge.frame(.att, response)) == [.toReader(response)])
        #expect(bridge.readerDidDisconnect() == [.toFirmware(FirmwareBridge.frame(.link, [0x03]))])
        #expect(bridge.readerDidDisconnect() == [], "a second disconnect says nothing")
        #expect(bridge.counters.pdusToFirmware == 1 && bridge.counters.pdusToReader == 1)
    }

    @Test func minuteMessagesBecomeTruthAndWrongLengthsAreCountedNotTrusted() {
        var bridge = FirmwareBridge()
        let record: [UInt8] = Array(1...16)
        // Sequence 0x01020304 little-endian, then the record as stored.
        #expect(fromFirmware(&bridge, FirmwareBridge.frame(.debug, [0x87, 0x04, 0x03, 0x02, 0x01] + record))
                == [.minuteRecorded(sequence: 0x0102_0304, record: record)])
        // No reader needs to be connected: the truth flows whether or not anyone listens.
        #expect(bridge.counters.minutesRecorded == 1)
        for broken in [[0x87], [0x87, 0, 0, 0, 0] + record.dropLast(), [0x87, 0, 0, 0, 0] + record + [0]] as [[UInt8]] {
            let actions = fromFirmware(&bridge, FirmwareBridge.frame(.debug, broken))
            guard case .log(let line)? = actions.first, actions.count == 1 else {
                Issue.record("a \(broken.count)-byte minute message gave \(actions)")
                continue
            }
            #expect(line.contains("minute message of \(broken.count) bytes"))
        }
        #expect(bridge.counters.malformedDebugMessages == 3 && bridge.counters.minutesRecorded == 1)
    }

    @Test func mtuExchangeSetsTheSmallerOfBoth() {
        var bridge = FirmwareBridge()
        _ = bridge.readerDidConnect()
        _ = bridge.received(fromReader: [0x02, 0x00, 0x02])                 // reader asks 512
        #expect(fromFirmware(&bridge, FirmwareBridge.frame(.att, [0x03, 0xF7, 0x00]))
                == [.setMTU(247), .toReader([0x03, 0xF7, 0x00])])
        _ = bridge.received(fromReader: [0x02, 0x40, 0x00])                 // asks 64
        #expect(fromFirmware(&bridge, FirmwareBridge.frame(.att, [0x03, 0xF7, 0x00]))
                == [.setMTU(64), .toReader([0x03, 0xF7, 0x00])])
        // A response nobody asked for changes nothing.
        #expect(fromFirmware(&bridge, FirmwareBridge.frame(.att, [0x03, 0xF7, 0x00])) == [.toReader([0x03, 0xF7, 0x00])])
    }

    @Test func framesSplitAtEveryOffsetArriveWhole() {
        let notification: [UInt8] = [0x1B, 0x09, 0x00, 0x06, 0x48]
        let stream = FirmwareBridge.frame(.att, notification) + FirmwareBridge.frame(.debug, [0x84] + Array("hello".utf8))
        for split in 0...stream.count {
            var bridge = FirmwareBridge()
            _ = bridge.readerDidConnect()
            let actions = fromFirmware(&bridge, Array(stream[..<split])) + fromFirmware(&bridge, Array(stream[split...]))
            #expect(actions == [.toReader(notification), .log("firmware: hello")], "split at \(split)")
        }
    }

    @Test func garbageIsCountedAndSkipped() {
        var bridge = FirmwareBridge()
        _ = bridge.readerDidConnect()
        let actions = fromFirmware(&bridge, [0x00, 0xA5, 0xFF, 0x13] + FirmwareBridge.frame(.att, [0x13]))
        #expect(actions == [.toReader([0x13])])
        #expect(bridge.decoderCounters.discardedBytes > 0)
    }

    @Test func pduWithoutReaderIsDroppedAndCounted() {
        var bridge = FirmwareBridge()
        #expect(fromFirmware(&bridge, FirmwareBridge.frame(.att, [0x1B, 0x09, 0x00, 0x48])) == [])
        #expect(bridge.counters.droppedForNoReader == 1)
    }

    @Test func aResetWhileConnectedReconnectsTheFirmware() {
        var bridge = FirmwareBridge()
        _ = bridge.readerDidConnect()
        let actions = fromFirmware(&bridge, FirmwareBridge.frame(.link, [0x80]))
        #expect(actions == [.log("firmware: booted (boot 1 seen by this bridge)"), .configureFirmware,
                            .toFirmware(FirmwareBridge.frame(.link, [0x02]))], "configured before the reader is connected again")
        _ = bridge.readerDidDisconnect()
        #expect(fromFirmware(&bridge, FirmwareBridge.frame(.link, [0x80])) == [.log("firmware: booted (boot 2 seen by this bridge)"), .configureFirmware],
                "every boot is configured again: the band's logic resumes after a reset")
    }

    @Test func theFlashReportIsALogLineAndOtherLengthsStayHex() {
        var bridge = FirmwareBridge()
        let report: [UInt8] = [0x86, 3, 0, 0, 0, 1, 0, 0, 0, 0x2C, 0x01, 0, 0, 2, 0, 0, 0, 0x2D, 0x01, 0, 0]
        #expect(fromFirmware(&bridge, FirmwareBridge.frame(.debug, report))
                == [.log("firmware: flash: boot 3, 1 damaged boot-record page(s), 300 minute(s) recovered, 2 damaged slot(s) skipped, next minute 301")])
        #expect(fromFirmware(&bridge, FirmwareBridge.frame(.debug, [0x86, 1, 0, 0, 0])) == [.log("firmware: debug message 86 01 00 00 00")])
    }

    @Test func logLinesAreEscaped() {
        var bridge = FirmwareBridge()
        let actions = fromFirmware(&bridge, FirmwareBridge.frame(.debug, [0x84, 0x1B, 0x5B, 0x32, 0x4A, 0x5C, 0xFF]))
        #expect(actions == [.log("firmware: \\x1b[2J\\x5c\\xff")])
        #expect(fromFirmware(&bridge, FirmwareBridge.frame(.debug, [0x81, 0x01])) == [.log("firmware: debug message 81 01")])
        #expect(fromFirmware(&bridge, FirmwareBridge.frame(UARTChannel(rawValue: 9), [1, 2]))
                == [.log("firmware: frame on unknown channel 9 (2 bytes) ignored")])
    }

    @Test func oversizeReaderPDUIsRefusedNotSent() {
        var bridge = FirmwareBridge()
        _ = bridge.readerDidConnect()
        let actions = bridge.received(fromReader: [UInt8](repeating: 0x52, count: 518))
        #expect(actions.count == 1)
        if case .log(let text)? = actions.first { #expect(text.contains("518-byte")) } else { Issue.record("no log: \(actions)") }
        #expect(bridge.counters.oversizeFromReader == 1 && bridge.counters.pdusToFirmware == 0)
    }
}

/// `--fault reboot-mid-history`: the bridge resets the firmware in the middle of a history
/// transfer and drops the reader, as a band's reset drops its radio link.
@Suite struct FirmwareBridgeRebootMidHistoryTests {
    private func fromFirmware(_ bridge: inout FirmwareBridge, _ bytes: [UInt8]) -> [FirmwareBridge.Action] {
        bytes.withUnsafeBytes { bridge.received(fromFirmware: $0) }
    }
    private let historyData: UInt16 = 0x0033
    private func packet(_ handle: UInt16, _ n: UInt8) -> [UInt8] { [0x1B, UInt8(handle & 0xFF), UInt8(handle >> 8), n, 0xAA] }

    @Test func theSecondHistoryPacketResetsTheFirmwareAndDropsTheReader() {
        var bridge = FirmwareBridge(resetMidHistory: .init(historyDataHandle: historyData, afterPackets: 2))
        _ = bridge.readerDidConnect()
        // A live notification on another handle and an indication do not count.
        #expect(fromFirmware(&bridge, FirmwareBridge.frame(.att, packet(0x002D, 0))) == [.toReader(packet(0x002D, 0))])
        #expect(fromFirmware(&bridge, FirmwareBridge.frame(.att, [0x1D, 0x30, 0x00, 0x01])) == [.toReader([0x1D, 0x30, 0x00, 0x01])])
        #expect(fromFirmware(&bridge, FirmwareBridge.frame(.att, packet(historyData, 1))) == [.toReader(packet(historyData, 1))])
        // Packet 2 reaches the reader, then the reset; packet 3, already on the UART, dies with the reset.
        let actions = fromFirmware(&bridge, FirmwareBridge.frame(.att, packet(historyData, 2)) + FirmwareBridge.frame(.att, packet(historyData, 3)))
        #expect(actions == [.toReader(packet(historyData, 2)),
                            .log("bridge: reboot-mid-history: resetting the firmware (link 0x0A) after history data packet 2 of this connection; dropping the reader's link"),
                            .toFirmware(FirmwareBridge.frame(.link, [0x0A])), .dropReader])
        #expect(!bridge.readerConnected && bridge.counters.droppedDuringReset == 1 && bridge.resetMidHistory == nil)
        #expect(bridge.resetInProgress, "no reader is accepted until the chip has booted")
        #expect(bridge.readerDidDisconnect() == [], "the reader is already gone: no 0x03 to a resetting chip")
        // The reader reconnects before the chip has booted: its frames wait for the boot.
        _ = bridge.readerDidConnect()
        #expect(fromFirmware(&bridge, FirmwareBridge.frame(.att, packet(historyData, 4))) == [])
        #expect(fromFirmware(&bridge, FirmwareBridge.frame(.link, [0x80]))
                == [.log("firmware: booted (boot 1 seen by this bridge)"),
                    .log("bridge: reboot-mid-history: 2 ATT frame(s) of the reset firmware dropped"),
                    .configureFirmware, .toFirmware(FirmwareBridge.frame(.link, [0x02]))])
        #expect(!bridge.resetInProgress)
        // Once: the next transfer runs to its end.
        for n in UInt8(1)...5 {
            #expect(fromFirmware(&bridge, FirmwareBridge.frame(.att, packet(historyData, n))) == [.toReader(packet(historyData, n))])
        }
    }

    @Test func withoutTheFaultHistoryPacketsOnlyPassThrough() {
        var bridge = FirmwareBridge()
        _ = bridge.readerDidConnect()
        for n in UInt8(1)...4 {
            #expect(fromFirmware(&bridge, FirmwareBridge.frame(.att, packet(historyData, n))) == [.toReader(packet(historyData, n))])
        }
        #expect(bridge.counters.droppedDuringReset == 0 && !bridge.resetInProgress)
    }

    @Test func theCountRestartsWithEveryConnection() {
        var bridge = FirmwareBridge(resetMidHistory: .init(historyDataHandle: historyData, afterPackets: 2))
        _ = bridge.readerDidConnect()
        _ = fromFirmware(&bridge, FirmwareBridge.frame(.att, packet(historyData, 1)))
        _ = bridge.readerDidDisconnect()
        _ = bridge.readerDidConnect()
        #expect(fromFirmware(&bridge, FirmwareBridge.frame(.att, packet(historyData, 1))) == [.toReader(packet(historyData, 1))],
                "one packet in each of two connections is not two packets of one transfer")
        #expect(fromFirmware(&bridge, FirmwareBridge.frame(.att, packet(historyData, 2))).contains(.dropReader))
    }
}
