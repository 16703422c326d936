import FirmwareBridge
import Testing
import UARTFraming

/// The band's configured start in these conversations (Unix seconds, 2026-11-30 00:00 UTC).
private let bandStart: Int64 = 1_796_256_000

/// A boot as the chip announces it: "booted" (0x80), then its flash report (0x86: boot count,
/// no damage, no minutes recovered, next minute sequence `next`, the newest record's minute start
/// `newest`, 0 for none), which ends the bridge's wait.
func booting(boot: UInt32 = 1, next: UInt32 = 0, newest: UInt32 = 0) -> [UInt8] {
    let fields = [boot, 0, 0, 0, next, newest].flatMap { value in (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    return FirmwareBridge.frame(.link, [0x80]) + FirmwareBridge.frame(.debug, [0x86] + fields)
}
/// The bridge's log line for that flash report.
func flashLog(boot: UInt32 = 1, next: UInt32 = 0, newest: UInt32 = 0) -> FirmwareBridge.Action {
    .log("firmware: flash: boot \(boot), 0 damaged boot-record page(s), 0 minute(s) recovered, 0 damaged slot(s) skipped, next minute \(next)"
         + (newest == 0 ? "" : ", newest starting at \(newest)"))
}

/// Conversations between a reader and the firmware's UART, through the bridge's decisions.
@Suite struct FirmwareBridgeTests {
    private func fromFirmware(_ bridge: inout FirmwareBridge, _ bytes: [UInt8]) -> [FirmwareBridge.Action] {
        bytes.withUnsafeBytes { bridge.received(fromFirmware: $0) }
    }

    @Test func connectRequestResponseDisconnect() {
        var bridge = FirmwareBridge(bandStart: bandStart)
        #expect(bridge.readerDidConnect() == [.toFirmware(FirmwareBridge.frame(.link, [0x02]))])
        #expect(bridge.received(fromReader: [0x0A, 0x03, 0x00]) == [.toFirmware(FirmwareBridge.frame(.att, [0x0A, 0x03, 0x00]))])
        let response: [UInt8] = [0x0B] + Array("BandKit M4".utf8)
        #expect(fromFirmware(&bridge, FirmwareBridge.frame(.att, response)) == [.toReader(response)])
        #expect(bridge.readerDidDisconnect() == [.toFirmware(FirmwareBridge.frame(.link, [0x03]))])
        #expect(bridge.readerDidDisconnect() == [], "a second disconnect says nothing")
        #expect(bridge.counters.pdusToFirmware == 1 && bridge.counters.pdusToReader == 1)
    }

    @Test func minuteMessagesBecomeTruthAndWrongLengthsAreCountedNotTrusted() {
        var bridge = FirmwareBridge(bandStart: bandStart)
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
        var bridge = FirmwareBridge(bandStart: bandStart)
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
            var bridge = FirmwareBridge(bandStart: bandStart)
            _ = bridge.readerDidConnect()
            let actions = fromFirmware(&bridge, Array(stream[..<split])) + fromFirmware(&bridge, Array(stream[split...]))
            #expect(actions == [.toReader(notification), .log("firmware: hello")], "split at \(split)")
        }
    }

    @Test func garbageIsCountedAndSkipped() {
        var bridge = FirmwareBridge(bandStart: bandStart)
        _ = bridge.readerDidConnect()
        let actions = fromFirmware(&bridge, [0x00, 0xA5, 0xFF, 0x13] + FirmwareBridge.frame(.att, [0x13]))
        #expect(actions == [.toReader([0x13])])
        #expect(bridge.decoderCounters.discardedBytes > 0)
    }

    @Test func pduWithoutReaderIsDroppedAndCounted() {
        var bridge = FirmwareBridge(bandStart: bandStart)
        #expect(fromFirmware(&bridge, FirmwareBridge.frame(.att, [0x1B, 0x09, 0x00, 0x48])) == [])
        #expect(bridge.counters.droppedForNoReader == 1)
    }

    @Test func aResetNobodyAskedForDropsTheConnectedReader() {
        var bridge = FirmwareBridge(bandStart: bandStart)
        _ = bridge.readerDidConnect()
        // The chip reset itself (a watchdog, a brown-out): its radio link went with it.
        let actions = fromFirmware(&bridge, booting())
        #expect(actions == [.log("firmware: booted (boot 1 seen by this bridge)"),
                            .log("bridge: the firmware reset itself while a reader was connected; dropping the reader's link"),
                            .dropReader, flashLog(), .configureFirmware(bandStart: bandStart)],
                "the reader's link closed, never carried over, and the chip configured once its flash report came")
        #expect(!bridge.readerConnected && bridge.counters.readersDropped == 1)
        #expect(bridge.readerDidDisconnect() == [], "the dropped reader's hang-up says nothing more to the firmware")
        #expect(fromFirmware(&bridge, FirmwareBridge.frame(.att, [0x1B, 0x09, 0x00, 0x48])) == [], "nothing reaches a dropped reader")
        // The reader comes back: a fresh connection on the rebooted chip.
        #expect(bridge.readerDidConnect() == [.toFirmware(FirmwareBridge.frame(.link, [0x02]))])
        _ = bridge.readerDidDisconnect()
        #expect(fromFirmware(&bridge, booting(boot: 2))
                == [.log("firmware: booted (boot 2 seen by this bridge)"), flashLog(boot: 2),
                    .log("bridge: the band resumes at \(bandStart) (Unix s, 0:00:00 after its start): its previous start; no minute recorded since"),
                    .configureFirmware(bandStart: bandStart)],
                "every boot is configured again: the band's logic resumes after a reset, where its clock was")
    }

    @Test func theFlashReportIsALogLineAndOtherLengthsStayHex() {
        var bridge = FirmwareBridge(bandStart: bandStart)
        let report: [UInt8] = [0x86, 3, 0, 0, 0, 1, 0, 0, 0, 0x2C, 0x01, 0, 0, 2, 0, 0, 0, 0x2D, 0x01, 0, 0, 0x3C, 0, 0, 0]
        #expect(fromFirmware(&bridge, FirmwareBridge.frame(.debug, report))
                == [.log("firmware: flash: boot 3, 1 damaged boot-record page(s), 300 minute(s) recovered, 2 damaged slot(s) skipped, next minute 301, newest starting at 60")])
        #expect(fromFirmware(&bridge, FirmwareBridge.frame(.debug, Array(report.dropLast(4))))
                == [.log("firmware: debug message 86 03 00 00 00 01 00 00 00 2c 01 00 00 02 00 00 00 2d 01 00 00")],
                "the 21-byte report of an older image is not taken for one")
        #expect(fromFirmware(&bridge, FirmwareBridge.frame(.debug, [0x86, 1, 0, 0, 0])) == [.log("firmware: debug message 86 01 00 00 00")])
    }

    @Test func logLinesAreEscaped() {
        var bridge = FirmwareBridge(bandStart: bandStart)
        let actions = fromFirmware(&bridge, FirmwareBridge.frame(.debug, [0x84, 0x1B, 0x5B, 0x32, 0x4A, 0x5C, 0xFF]))
        #expect(actions == [.log("firmware: \\x1b[2J\\x5c\\xff")])
        #expect(fromFirmware(&bridge, FirmwareBridge.frame(.debug, [0x81, 0x01])) == [.log("firmware: debug message 81 01")])
        #expect(fromFirmware(&bridge, FirmwareBridge.frame(UARTChannel(rawValue: 9), [1, 2]))
                == [.log("firmware: frame on unknown channel 9 (2 bytes) ignored")])
    }

    @Test func oversizeReaderPDUIsRefusedNotSent() {
        var bridge = FirmwareBridge(bandStart: bandStart)
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
        var bridge = FirmwareBridge(bandStart: bandStart, resetMidHistory: .init(historyDataHandle: historyData, afterPackets: 2))
        _ = bridge.readerDidConnect()
        // A live notification on another handle and an indication do not count.
        #expect(fromFirmware(&bridge, FirmwareBridge.frame(.att, packet(0x002D, 0))) == [.toReader(packet(0x002D, 0))])
        #expect(fromFirmware(&bridge, FirmwareBridge.frame(.att, [0x1D, 0x30, 0x00, 0x01])) == [.toReader([0x1D, 0x30, 0x00, 0x01])])
        #expect(fromFirmware(&bridge, FirmwareBridge.frame(.att, packet(historyData, 1))) == [.toReader(packet(historyData, 1))])
        // Packet 2 reaches the reader, then the reset; packet 3, already on the UART, dies with the reset.
        let actions = fromFirmware(&bridge, FirmwareBridge.frame(.att, packet(historyData, 2)) + FirmwareBridge.frame(.att, packet(historyData, 3)))
        #expect(actions == [.toReader(packet(historyData, 2)),
                            .log("bridge: reboot-mid-history: after history data packet 2 of this connection: resetting the firmware (link 0x0A); dropping the reader's link"),
                            .toFirmware(FirmwareBridge.frame(.link, [0x0A])), .dropReader])
        #expect(!bridge.readerConnected && bridge.counters.droppedDuringReset == 1 && bridge.resetMidHistory == nil)
        #expect(bridge.resetInProgress, "no reader is accepted until the chip has booted")
        #expect(bridge.readerDidDisconnect() == [], "the reader is already gone: no 0x03 to a resetting chip")
        // A reader that reconnects before the chip has booted (a caller not waiting for
        // resetInProgress) is announced to the chip once it has booted; its frames wait for the boot.
        #expect(bridge.readerDidConnect() == [], "no connect message to a chip that is resetting")
        #expect(fromFirmware(&bridge, FirmwareBridge.frame(.att, packet(historyData, 4))) == [])
        #expect(fromFirmware(&bridge, booting())
                == [.log("firmware: booted (boot 1 seen by this bridge)"),
                    .log("bridge: 2 ATT frame(s) of the reset firmware dropped so far"), flashLog(),
                    .configureFirmware(bandStart: bandStart), .toFirmware(FirmwareBridge.frame(.link, [0x02]))])
        #expect(bridge.readerConnected, "it connected after the reset: nothing of it was lost")
        #expect(!bridge.resetInProgress)
        // Once: the next transfer runs to its end.
        for n in UInt8(1)...5 {
            #expect(fromFirmware(&bridge, FirmwareBridge.frame(.att, packet(historyData, n))) == [.toReader(packet(historyData, n))])
        }
    }

    @Test func withoutTheFaultHistoryPacketsOnlyPassThrough() {
        var bridge = FirmwareBridge(bandStart: bandStart)
        _ = bridge.readerDidConnect()
        for n in UInt8(1)...4 {
            #expect(fromFirmware(&bridge, FirmwareBridge.frame(.att, packet(historyData, n))) == [.toReader(packet(historyData, n))])
        }
        #expect(bridge.counters.droppedDuringReset == 0 && !bridge.resetInProgress)
    }

    @Test func theCountRestartsWithEveryConnection() {
        var bridge = FirmwareBridge(bandStart: bandStart, resetMidHistory: .init(historyDataHandle: historyData, afterPackets: 2))
        _ = bridge.readerDidConnect()
        _ = fromFirmware(&bridge, FirmwareBridge.frame(.att, packet(historyData, 1)))
        _ = bridge.readerDidDisconnect()
        _ = bridge.readerDidConnect()
        #expect(fromFirmware(&bridge, FirmwareBridge.frame(.att, packet(historyData, 1))) == [.toReader(packet(historyData, 1))],
                "one packet in each of two connections is not two packets of one transfer")
        #expect(fromFirmware(&bridge, FirmwareBridge.frame(.att, packet(historyData, 2))).contains(.dropReader))
    }
}

/// `--fault reboot-at=DURATION` with a reader connected: the bridge resets the firmware once the
/// band has run that long and drops the reader's link with the reset, as every reset does; no
/// reader is accepted until the chip has booted; the reader then reconnects to a fresh link.
@Suite struct FirmwareBridgeRebootAtTests {
    private func fromFirmware(_ bridge: inout FirmwareBridge, _ bytes: [UInt8]) -> [FirmwareBridge.Action] {
        bytes.withUnsafeBytes { bridge.received(fromFirmware: $0) }
    }
    /// The band started at this Unix time (a minute boundary plus 30 s, as `--start …:30`).
    private let start: Int64 = 1_796_016_030
    /// Debug 0x87 for minute `sequence` starting at `minuteStart` (Unix seconds; the rest of the record zero).
    private func minute(_ sequence: UInt32, startingAt minuteStart: Int64) -> [UInt8] {
        let at = UInt32(minuteStart)
        let record: [UInt8] = [UInt8(at & 0xFF), UInt8(at >> 8 & 0xFF), UInt8(at >> 16 & 0xFF), UInt8(at >> 24)] + [UInt8](repeating: 0, count: 12)
        return FirmwareBridge.frame(.debug, [0x87, UInt8(sequence), 0, 0, 0] + record)
    }
    /// The start of the `index`th whole minute after the start: it ends 60·index + 90 s into the run.
    private func minuteStart(_ index: Int64) -> Int64 { (start / 60 + 1 + index) * 60 }

    @Test func theResetThatIsDueDropsTheConnectedReaderAndNoneIsAcceptedUntilTheBoot() {
        var bridge = FirmwareBridge(bandStart: start, rebootAt: .init(bandStart: start, after: [7_200, 3_600]))
        _ = fromFirmware(&bridge, booting())
        #expect(bridge.readerDidConnect() == [.toFirmware(FirmwareBridge.frame(.link, [0x02]))])
        // Minutes before the first due time (3,600 s: the list is taken in order) pass through.
        let early = minuteStart(58)   // ends 3,570 s after the start
        #expect(fromFirmware(&bridge, minute(58, startingAt: early)).count == 1)
        #expect(bridge.readerConnected && !bridge.resetInProgress)
        // The minute that ends at or after an hour: truth first, then the reset, then the drop.
        let due = minuteStart(59)     // ends 3,630 s after the start
        let actions = fromFirmware(&bridge, minute(59, startingAt: due) + FirmwareBridge.frame(.att, [0x1B, 0x09, 0x00, 0x48]))
        guard actions.count == 4 else { Issue.record("actions: \(actions)"); return }
        if case .minuteRecorded(let sequence, _) = actions[0] { #expect(sequence == 59) } else { Issue.record("no truth first: \(actions)") }
        #expect(Array(actions[1...]) == [.log("bridge: reboot-at: the band has run 60 min: resetting the firmware (link 0x0A); dropping the reader's link"),
                                        .toFirmware(FirmwareBridge.frame(.link, [0x0A])), .dropReader],
                "the notification behind the reset never reaches the reader")
        #expect(!bridge.readerConnected && bridge.resetInProgress && bridge.counters.droppedDuringReset == 1)
        #expect(bridge.readerDidDisconnect() == [], "the reader is already gone")
        // The chip boots: configured again; the reader reconnects to a fresh link.
        #expect(fromFirmware(&bridge, booting(boot: 2, next: 60))
                == [.log("firmware: booted (boot 2 seen by this bridge)"), .log("bridge: 1 ATT frame(s) of the reset firmware dropped so far"),
                    flashLog(boot: 2, next: 60),
                    .log("bridge: the band resumes at \(minuteStart(60)) (Unix s, 1:00:30 after its start): the end of its last recorded minute"),
                    .configureFirmware(bandStart: minuteStart(60))])
        #expect(!bridge.resetInProgress)
        #expect(bridge.readerDidConnect() == [.toFirmware(FirmwareBridge.frame(.link, [0x02]))])
        #expect(fromFirmware(&bridge, FirmwareBridge.frame(.att, [0x1B, 0x09, 0x00, 0x49])) == [.toReader([0x1B, 0x09, 0x00, 0x49])])
        // Each time once: the next due time is two hours.
        for index in Int64(60)...118 {
            #expect(fromFirmware(&bridge, minute(UInt32(index), startingAt: minuteStart(index))).count == 1, "\(60 * index + 90) s: not yet")
        }
        let second = fromFirmware(&bridge, minute(119, startingAt: minuteStart(119)))
        #expect(second.contains(.dropReader) && second.contains(.toFirmware(FirmwareBridge.frame(.link, [0x0A]))))
        #expect(bridge.rebootAt == nil && bridge.counters.resetsRequested == 2 && bridge.counters.readersDropped == 2)
        _ = fromFirmware(&bridge, booting())
        #expect(fromFirmware(&bridge, minute(120, startingAt: minuteStart(120))).count == 1, "no more resets")
    }

    @Test func withoutAReaderTheResetDropsNothing() {
        var bridge = FirmwareBridge(bandStart: start, rebootAt: .init(bandStart: start, after: [120]))
        let actions = fromFirmware(&bridge, minute(1, startingAt: minuteStart(1)))
        #expect(Array(actions.dropFirst()) == [.log("bridge: reboot-at: the band has run 2 min: resetting the firmware (link 0x0A)"),
                                              .toFirmware(FirmwareBridge.frame(.link, [0x0A]))])
        #expect(bridge.resetInProgress && bridge.counters.readersDropped == 0)
    }
}

/// Link message 0x89: the chip's band dropped the reader's link itself (an indication queue
/// overflow, no entropy): the bridge closes the reader's link, so the reader reconnects instead
/// of waiting for answers that never come — but never for a drop of an earlier link.
@Suite struct FirmwareBridgeLinkDroppedTests {
    private func fromFirmware(_ bridge: inout FirmwareBridge, _ bytes: [UInt8]) -> [FirmwareBridge.Action] {
        bytes.withUnsafeBytes { bridge.received(fromFirmware: $0) }
    }
    private func dropped(link: UInt32, reason: UInt8) -> [UInt8] {
        FirmwareBridge.frame(.link, [0x89, UInt8(link & 0xFF), UInt8(link >> 8 & 0xFF), UInt8(link >> 16 & 0xFF), UInt8(link >> 24), reason])
    }

    @Test func theBandsDropClosesTheReadersLink() {
        var bridge = FirmwareBridge(bandStart: bandStart)
        _ = fromFirmware(&bridge, booting())
        _ = bridge.readerDidConnect()
        #expect(fromFirmware(&bridge, dropped(link: 1, reason: 1))
                == [.log("firmware: the band dropped the reader's link 1 (its indication queue overflowed); closing it"), .dropReader])
        #expect(!bridge.readerConnected && bridge.counters.readersDropped == 1)
        #expect(bridge.readerDidDisconnect() == [], "the band knows: no 0x03")
        #expect(!bridge.resetInProgress, "the chip still runs: the reader may come back at once")
        #expect(bridge.readerDidConnect() == [.toFirmware(FirmwareBridge.frame(.link, [0x02]))])
        #expect(fromFirmware(&bridge, dropped(link: 2, reason: 2))
                == [.log("firmware: the band dropped the reader's link 2 (no entropy for a key or challenge); closing it"), .dropReader])
    }

    @Test func aDropOfAnEarlierLinkNeverClosesTheNewOne() {
        var bridge = FirmwareBridge(bandStart: bandStart)
        _ = fromFirmware(&bridge, booting())
        _ = bridge.readerDidConnect()
        _ = bridge.readerDidDisconnect()   // reader 1 left while the band was dropping it
        _ = bridge.readerDidConnect()      // reader 2 is link 2
        #expect(fromFirmware(&bridge, dropped(link: 1, reason: 1))
                == [.log("firmware: the band dropped link 1 (its indication queue overflowed); not the current one (2), ignored")])
        #expect(bridge.readerConnected && bridge.counters.staleLinkDrops == 1)
        // After a boot the count starts again: link 1 of the new boot is the current one.
        _ = bridge.readerDidDisconnect()
        _ = fromFirmware(&bridge, booting())
        _ = bridge.readerDidConnect()
        #expect(fromFirmware(&bridge, dropped(link: 1, reason: 9)).last == .dropReader)
        #expect(fromFirmware(&bridge, dropped(link: 1, reason: 9))
                == [.log("firmware: the band dropped link 1 (reason 9); not the current one (1, none connected), ignored")])
    }

    @Test func aMalformedDropIsCountedNotActedOn() {
        var bridge = FirmwareBridge(bandStart: bandStart)
        _ = bridge.readerDidConnect()
        for broken in [[0x89], [0x89, 1, 0, 0, 0], [0x89, 1, 0, 0, 0, 1, 0]] as [[UInt8]] {
            let actions = fromFirmware(&bridge, FirmwareBridge.frame(.link, broken))
            #expect(actions.count == 1 && !actions.contains(.dropReader), "\(broken.count) bytes")
        }
        #expect(bridge.readerConnected && bridge.counters.malformedLinkMessages == 3)
    }
}
