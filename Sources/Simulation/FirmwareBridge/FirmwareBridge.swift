import UARTFraming

/// The host side of `bandsim serve --firmware`: the decisions between one reader's ATT bearer
/// and the firmware's UART, without I/O (design principle 2). The caller feeds it what happened
/// (a reader connected, a PDU from the reader, bytes from the UART, the reader left) and carries
/// out the actions it returns (bytes to the UART, a PDU to the reader, a new ATT_MTU, a log line).
///
/// One codec on both sides: frames are built and parsed by UARTFraming, the code the image runs.
/// Link messages follow docs/protocol.md "UART framing": 0x02 connect and 0x03 disconnect go to
/// the firmware; 0x80 booted and debug 0x84 log lines come back as log actions, debug 0x87 (a
/// minute the firmware recorded) as ``Action/minuteRecorded(sequence:record:)``, 0x89 (the band
/// dropped the reader's link itself) as ``Action/dropReader``. An ATT PDU from
/// the firmware while no reader is connected is dropped and counted (a reader that left just
/// before a notification). ATT_MTU: the bridge sees the reader's Exchange MTU Request and the
/// firmware's response, and reports the MTU both now use, so the reader's bearer accepts PDUs
/// up to it.
///
/// **Every firmware reset takes the reader's link with it**, as a real band's reset takes its
/// radio link: a reset the bridge asks for (``RebootAt``, ``ResetMidHistory``) drops the reader at
/// once and accepts none until the next "booted" (``resetInProgress``); a boot nobody asked for
/// (the chip reset itself) drops a reader still connected when it is announced. The reader then
/// reconnects as to any band that went away, and resumes its history from its cursor. A reader
/// whose link survived would wait for answers the rebooted chip never sends.
///
/// **The band's time across a reset is the chip's own**, not the host's. The chip keeps no clock
/// across a reset, so after every boot the host tells it the time (0x10), as a phone tells a
/// rebooted band. Its clock runs behind `--speed` under emulation (QEMU delivers SysTick late on a
/// loaded host and the chip does not make the periods up), so the host's wall time × speed is
/// ahead of the band: a reset would leave a gap in its minutes. So the bridge reckons the band's
/// time from what the chip reported: the end of the last minute it recorded (0x87). After a reset
/// — asked for or not (a hard fault or watchdog resets the chip in microseconds; the band lost
/// only the minute it had not closed, as a real band that reboots and asks its phone) — the band
/// resumes there: its next minute follows the last one, never a gap, never a minute twice, never
/// back in time (``Action/configureFirmware(bandStart:)``). The minutes the chip reports are
/// checked for exactly that (``Counters/minuteGaps``, ``Counters/minutesBackInTime``).
public struct FirmwareBridge {
    public enum Action: Equatable {
        /// Bytes to write to the UART (one whole frame).
        case toFirmware([UInt8])
        /// One ATT PDU for the reader.
        case toReader([UInt8])
        /// The reader's bearer now uses this ATT_MTU.
        case setMTU(Int)
        /// A line for the operator's log (already free of control characters).
        case log(String)
        /// The firmware recorded a minute (debug message 0x87): its sequence number and the
        /// 16 bytes of the record as stored (docs/protocol.md), for `--truth`.
        case minuteRecorded(sequence: UInt32, record: [UInt8])
        /// The firmware booted (0x80; the first boot or after a reset) and sent its flash report
        /// (0x86, right after 0x80; one of the wrong length is logged and still ends the wait): it has no seed, clock speed
        /// or band start until the host sends them (0x01, 0x09, 0x10: the host is its clock, as a
        /// phone is a band's after a reboot). `bandStart` is the time for 0x10, Unix seconds: the
        /// configured start on the first boot, then the band's own time as the chip last reported
        /// it (the end of its last recorded minute). Comes before the reconnection of a connected reader.
        case configureFirmware(bandStart: Int64)
        /// Close the reader's link now: the firmware was reset (a band's reset takes its radio link
        /// with it) or its band dropped the link itself (0x89). The bridge already counts the
        /// reader as gone (``readerConnected`` is false).
        case dropReader
    }

    /// `bandsim serve --firmware … --fault reboot-mid-history`: once, right after the
    /// `afterPackets`-th History Data notification (opcode 0x1B on `historyDataHandle`) went to the
    /// reader, reset the firmware (link 0x0A) and drop the reader's link, as a real band's reset
    /// drops its connection. Until the firmware announces its next boot (0x80), its ATT frames are
    /// dropped and counted (``Counters/droppedDuringReset``): on a band they would die in the
    /// radio's buffers with the reset. The reader reconnects and resumes from its cursor.
    public struct ResetMidHistory: Equatable {
        public var historyDataHandle: UInt16
        public var afterPackets: Int
        public init(historyDataHandle: UInt16, afterPackets: Int) {
            self.historyDataHandle = historyDataHandle
            self.afterPackets = afterPackets
        }
    }

    /// `bandsim serve --firmware … --fault reboot-at=DURATION` (repeatable): once a minute ending
    /// at or after each band run time has been recorded (debug 0x87; the run time is the minute's
    /// end less the band's configured start), reset the firmware (link 0x0A), each time once, in
    /// order — and drop the reader, as for every reset.
    public struct RebootAt: Equatable {
        /// The band's configured start, Unix seconds (link 0x10 of the first boot).
        public var bandStart: Int64
        /// Band run times, seconds, ascending.
        public var after: [Int64]
        public init(bandStart: Int64, after: [Int64]) {
            self.bandStart = bandStart
            self.after = after.sorted()
        }
    }

    /// Why the band dropped the reader's link, as link message 0x89 says (docs/protocol.md; the
    /// chip's `ChipLinkHost` sends it). Unknown codes are shown as numbers.
    public static func linkDropReason(_ code: UInt8) -> String {
        switch code {
        case 1: return "its indication queue overflowed"
        case 2: return "no entropy for a key or challenge"
        case 3: return "a send failed"
        case 4: return "a fault injection"
        case 5: return "the band rebooted"
        default: return "reason \(code)"
        }
    }

    /// The minute record's size in a 0x87 message (BandProtocol's `MinuteRecord.size`; this
    /// module depends on UARTFraming only).
    public static let minuteRecordByteCount = 16

    public struct Counters: Equatable {
        /// ATT PDUs the firmware sent while no reader was connected.
        public var droppedForNoReader = 0
        /// Reader PDUs too long for one UART frame (never sent; a reader's MTU keeps them ≤ 517).
        public var oversizeFromReader = 0
        public var pdusToFirmware = 0
        public var pdusToReader = 0
        public var boots = 0
        /// 0x87 minute messages from the firmware, and debug messages of a known code but the wrong length.
        public var minutesRecorded = 0
        public var malformedDebugMessages = 0
        /// ATT frames from the firmware between a reset the bridge asked for and the next boot.
        public var droppedDuringReset = 0
        /// Resets the bridge asked for (``RebootAt``, ``ResetMidHistory``).
        public var resetsRequested = 0
        /// Reader links dropped: by a reset (asked for or not) or by the band (0x89).
        public var readersDropped = 0
        /// 0x89 messages about a link that is already gone (an earlier connection's); ignored.
        public var staleLinkDrops = 0
        /// Link messages of a known code but the wrong length.
        public var malformedLinkMessages = 0
        /// 0x87 minutes that start after the end of the previous one (minutes the band never recorded).
        public var minuteGaps = 0
        /// 0x87 minutes that start before the end of the previous one (a minute twice, or time going back).
        public var minutesBackInTime = 0
        public init() {}
    }

    public private(set) var counters = Counters()
    /// The band's configured start, Unix seconds (`--start`; 0x10 of the first boot).
    public let bandStart: Int64
    /// The band's time as the chip last reported it: the end of the latest minute it recorded
    /// (0x87), Unix seconds; nil until its first.
    public private(set) var bandTimeReported: Int64?
    /// The start the last 0x10 carried (``Action/configureFirmware(bandStart:)``); nil before the first boot.
    public private(set) var lastConfiguredStart: Int64?
    public private(set) var readerConnected = false
    public var decoderCounters: UARTFrameDecoder.Counters { decoder.counters }
    private var decoder = UARTFrameDecoder()
    /// The reader's asked ATT_MTU while an Exchange MTU Request is outstanding.
    private var requestedMTU: Int?
    /// The pending ``ResetMidHistory`` fault (nil once it has fired).
    public private(set) var resetMidHistory: ResetMidHistory?
    /// History Data notifications forwarded in the current connection.
    private var historyPacketsThisConnection = 0
    /// The pending ``RebootAt`` run times (the first is the next due).
    public private(set) var rebootAt: RebootAt?
    /// A reset the bridge asked for, or a boot not yet configured (0x10 not yet sent).
    private var resetting = false
    /// Booted (0x80); configured once its flash report (0x86) comes.
    private var awaitingFlashReport = false
    /// The sequence number of the last minute the chip reported (0x87).
    private var lastReportedSequence: UInt32?
    /// Connect messages (0x02) sent since the firmware's last boot: the number the firmware's 0x89
    /// carries for the link it dropped, so a drop of an earlier link never closes a newer one.
    private var connectsSinceBoot: UInt32 = 0
    /// The current reader connected after the reset the bridge asked for, before the boot.
    private var connectedDuringReset = false
    /// True from a reset the bridge asked for, and from every boot, until the chip is configured
    /// (its flash report came, 0x10 went): the caller accepts no reader meanwhile (its first PDUs
    /// would reach a chip that is not running; the reader's connection waits in the listener's
    /// backlog instead).
    public var resetInProgress: Bool { resetting }

    public init(bandStart: Int64, resetMidHistory: ResetMidHistory? = nil, rebootAt: RebootAt? = nil) {
        precondition(resetMidHistory.map { $0.afterPackets > 0 } ?? true, "reboot-mid-history needs a packet count of at least 1")
        precondition(rebootAt.map { $0.bandStart == bandStart } ?? true, "reboot-at counts from the band's start")
        self.bandStart = bandStart
        self.resetMidHistory = resetMidHistory
        self.rebootAt = rebootAt.flatMap { $0.after.isEmpty ? nil : $0 }
    }

    public mutating func readerDidConnect() -> [Action] {
        readerConnected = true
        requestedMTU = nil
        historyPacketsThisConnection = 0
        // A reader that comes while the chip resets (a caller that does not wait for
        // ``resetInProgress``) lost nothing: it is announced once the chip has booted.
        connectedDuringReset = resetting
        if resetting { return [] }
        connectsSinceBoot &+= 1
        return [.toFirmware(Self.frame(.link, [0x02]))]
    }

    /// Resets the firmware (link 0x0A) and drops the reader if one is connected; no reader is
    /// accepted until the next boot.
    private mutating func resetFirmware(_ why: String) -> [Action] {
        counters.resetsRequested += 1
        resetting = true
        let dropping = readerConnected ? "; dropping the reader's link" : ""
        return [.log("bridge: \(why): resetting the firmware (link 0x0A)\(dropping)"), .toFirmware(Self.frame(.link, [0x0A]))]
            + dropReader()
    }

    /// ``Action/dropReader`` when a reader is connected; it counts as gone from here on.
    private mutating func dropReader() -> [Action] {
        guard readerConnected else { return [] }
        readerConnected = false
        requestedMTU = nil
        counters.readersDropped += 1
        return [.dropReader]
    }

    public mutating func readerDidDisconnect() -> [Action] {
        guard readerConnected else { return [] }
        readerConnected = false
        requestedMTU = nil
        return [.toFirmware(Self.frame(.link, [0x03]))]
    }

    public mutating func received(fromReader pdu: [UInt8]) -> [Action] {
        guard pdu.count <= UARTFrame.maximumPayload else {
            counters.oversizeFromReader += 1
            return [.log("bridge: a \(pdu.count)-byte PDU from the reader exceeds a UART frame (\(UARTFrame.maximumPayload) bytes); dropped")]
        }
        if pdu.count == 3, pdu[0] == 0x02 { requestedMTU = Int(pdu[1]) | Int(pdu[2]) << 8 }
        counters.pdusToFirmware += 1
        return [.toFirmware(Self.frame(.att, pdu))]
    }

    public mutating func received(fromFirmware bytes: UnsafeRawBufferPointer) -> [Action] {
        var frames: [(UARTChannel, [UInt8])] = []
        decoder.decode(bytes) { channel, payload in frames.append((channel, Array(payload))) }
        return frames.flatMap { handleFrame($0.0, $0.1) }
    }

    private mutating func handleFrame(_ channel: UARTChannel, _ payload: [UInt8]) -> [Action] {
        switch channel {
        case .att:
            if resetting {
                counters.droppedDuringReset += 1
                return []
            }
            guard readerConnected else {
                counters.droppedForNoReader += 1
                return []
            }
            var actions: [Action] = []
            if payload.count == 3, payload[0] == 0x03, let asked = requestedMTU {
                requestedMTU = nil
                let served = Int(payload[1]) | Int(payload[2]) << 8
                actions.append(.setMTU(max(23, min(asked, served))))
            }
            counters.pdusToReader += 1
            actions.append(.toReader(payload))
            if let fault = resetMidHistory, payload.count >= 3, payload[0] == 0x1B,
               UInt16(payload[1]) | UInt16(payload[2]) << 8 == fault.historyDataHandle {
                historyPacketsThisConnection += 1
                if historyPacketsThisConnection == fault.afterPackets {
                    resetMidHistory = nil
                    actions += resetFirmware("reboot-mid-history: after history data packet \(fault.afterPackets) of this connection")
                }
            }
            return actions
        case .link:
            if payload.first == 0x80 {
                counters.boots += 1
                let afterOurReset = resetting && !awaitingFlashReport
                // Booting until configured: the chip's flash report (0x86, sent right after 0x80)
                // says how far its ring got, then 0x10 starts it; no reader meanwhile.
                resetting = true
                awaitingFlashReport = true
                connectsSinceBoot = 0
                var actions: [Action] = [.log("firmware: booted (boot \(counters.boots) seen by this bridge)")]
                if afterOurReset {
                    actions.append(.log("bridge: \(counters.droppedDuringReset) ATT frame(s) of the reset firmware dropped so far"))
                } else if readerConnected {
                    // A reset nobody asked for (the chip reset itself) with a reader connected: the
                    // firmware starts with no connection, and the reader's link goes as a band's would.
                    actions.append(.log("bridge: the firmware reset itself while a reader was connected; dropping the reader's link"))
                    actions += dropReader()
                }
                return actions
            }
            if payload.first == 0x89 {
                guard payload.count == 6 else {
                    counters.malformedLinkMessages += 1
                    return [.log("firmware: link-dropped message of \(payload.count) bytes, not 6; ignored: \(Self.hex(payload))")]
                }
                let link = UInt32(payload[1]) | UInt32(payload[2]) << 8 | UInt32(payload[3]) << 16 | UInt32(payload[4]) << 24
                let why = Self.linkDropReason(payload[5])
                guard readerConnected, link == connectsSinceBoot else {
                    counters.staleLinkDrops += 1
                    return [.log("firmware: the band dropped link \(link) (\(why)); not the current one (\(connectsSinceBoot)"
                                 + (readerConnected ? "" : ", none connected") + "), ignored")]
                }
                return [.log("firmware: the band dropped the reader's link \(link) (\(why)); closing it")] + dropReader()
            }
            return [.log("firmware: link message \(Self.hex(payload))")]
        case .debug:
            if payload.first == 0x84 {
                return [.log("firmware: " + Self.printable(payload.dropFirst()))]
            }
            if payload.first == 0x86, payload.count == 25 {
                let field = { (index: Int) in
                    (0..<4).reduce(UInt32(0)) { $0 | UInt32(payload[1 + index * 4 + $1]) << UInt32(8 * $1) }
                }
                let newest = field(5) == 0 ? nil : Int64(field(5))
                return [.log("firmware: flash: boot \(field(0)), \(field(1)) damaged boot-record page(s), \(field(2)) minute(s) "
                             + "recovered, \(field(3)) damaged slot(s) skipped, next minute \(field(4))"
                             + (newest.map { ", newest starting at \($0)" } ?? ""))]
                    + (awaitingFlashReport ? configureAfterBoot(nextSequence: field(4), newestMinuteStart: newest) : [])
            }
            if payload.first == 0x86, awaitingFlashReport {
                counters.malformedDebugMessages += 1
                return [.log("firmware: flash report of \(payload.count) bytes, not 25; configuring without it: \(Self.hex(payload))")]
                    + configureAfterBoot(nextSequence: nil, newestMinuteStart: nil)
            }
            if payload.first == 0x87 {
                guard payload.count == 5 + Self.minuteRecordByteCount else {
                    counters.malformedDebugMessages += 1
                    return [.log("firmware: minute message of \(payload.count) bytes, not \(5 + Self.minuteRecordByteCount); ignored: \(Self.hex(payload))")]
                }
                let sequence = UInt32(payload[1]) | UInt32(payload[2]) << 8 | UInt32(payload[3]) << 16 | UInt32(payload[4]) << 24
                counters.minutesRecorded += 1
                lastReportedSequence = sequence
                let start = Int64(UInt32(payload[5]) | UInt32(payload[6]) << 8 | UInt32(payload[7]) << 16 | UInt32(payload[8]) << 24)
                return [.minuteRecorded(sequence: sequence, record: Array(payload[5...]))]
                    + followBandClock(minute: sequence, startingAt: start) + rebootIfDue(minuteStart: start)
            }
            return [.log("firmware: debug message \(Self.hex(payload))")]
        default:
            return [.log("firmware: frame on unknown channel \(channel.rawValue) (\(payload.count) bytes) ignored")]
        }
    }

    /// The boot is over once the chip's flash report (0x86) has come: configure it (0x10), then
    /// announce a reader that connected meanwhile. The first boot starts the band at its
    /// configured start; a later one resumes it where the chip's own clock was when it last
    /// reported — the end of its last recorded minute, or, with none since, the previous 0x10's
    /// time (it lost less than a minute) — and never earlier than the previous 0x10 (time does not
    /// go back). Minutes the chip made durable but whose 0x87 the reset cut off (the report's next
    /// sequence number is past the last one reported, by at most ``maximumUnreportedMinutes``)
    /// followed the last reported one, a minute each: the band resumes after them. Whatever the
    /// boot, the band never starts before the end of the newest minute its flash holds (the
    /// report's last field): a host started again on the same `--state` and `--start` would
    /// otherwise set the clock back before minutes the band already recorded.
    private mutating func configureAfterBoot(nextSequence: UInt32?, newestMinuteStart: Int64?) -> [Action] {
        awaitingFlashReport = false
        resetting = false
        var actions: [Action] = []
        if let previous = lastConfiguredStart {
            var reported = bandTimeReported
            if let last = lastReportedSequence, let next = nextSequence, next > last &+ 1, let end = reported {
                let unreported = next - last - 1
                if unreported <= Self.maximumUnreportedMinutes {
                    reported = end + 60 * Int64(unreported)
                    actions.append(.log("bridge: \(unreported) minute(s) in the chip's flash after minute \(last) were never reported (the reset cut off their 0x87)"))
                } else {
                    actions.append(.log("bridge: the chip's next minute is \(next), \(unreported) after the last reported (\(last)): not this band's ring; ignored"))
                }
            }
            var resume = max(previous, reported ?? previous)
            var from = resume == reported ? "the end of its last recorded minute" : "its previous start; no minute recorded since"
            if let newest = newestMinuteStart, newest + 60 > resume {
                resume = newest + 60
                from = "the end of the newest minute in its flash"
            }
            lastConfiguredStart = resume
            actions += [.log("bridge: the band resumes at \(resume) (Unix s, \(Self.runTime(resume - bandStart)) after its start): \(from)"),
                        .configureFirmware(bandStart: resume)]
        } else if let newest = newestMinuteStart, newest + 60 > bandStart {
            lastConfiguredStart = newest + 60
            actions += [.log("bridge: the chip's flash holds minutes up to \(newest) (Unix s), after the start \(bandStart): "
                             + "the band resumes at the end of the newest, \(newest + 60), not back in time"),
                        .configureFirmware(bandStart: newest + 60)]
        } else {
            lastConfiguredStart = bandStart
            actions.append(.configureFirmware(bandStart: bandStart))
        }
        if readerConnected, connectedDuringReset {
            connectedDuringReset = false
            connectsSinceBoot = 1
            actions.append(.toFirmware(Self.frame(.link, [0x02])))
        }
        return actions
    }

    /// The most minutes a reset can cut off between flash and UART (the chip's 1 KB outbox holds
    /// 40 0x87 frames); a larger jump in the sequence numbers is another ring, not lost reports.
    public static let maximumUnreportedMinutes: UInt32 = 40

    /// A minute the chip recorded moves the band's reported time on; one that does not follow the
    /// previous one is counted and logged (its record still goes to the truth: it is what the band stored).
    private mutating func followBandClock(minute sequence: UInt32, startingAt start: Int64) -> [Action] {
        let end = start + 60
        defer { bandTimeReported = max(bandTimeReported ?? end, end) }
        guard let expected = bandTimeReported, start != expected else { return [] }
        if start > expected {
            counters.minuteGaps += 1
            return [.log("bridge: minute \(sequence) starts at \(start), \(start - expected) s after the previous minute's end: a gap in the band's minutes")]
        }
        counters.minutesBackInTime += 1
        return [.log("bridge: minute \(sequence) starts at \(start), \(expected - start) s before the previous minute's end: the band's time went back")]
    }

    /// `h:mm:ss` of a band run time in seconds.
    static func runTime(_ seconds: Int64) -> String {
        let s = max(0, seconds)
        let minutes = s / 60 % 60, rest = s % 60
        return "\(s / 3600):\(minutes < 10 ? "0" : "")\(minutes):\(rest < 10 ? "0" : "")\(rest)"
    }

    /// ``RebootAt``: a minute starting at `start` closed; reset when the band has run the first
    /// pending run time.
    private mutating func rebootIfDue(minuteStart start: Int64) -> [Action] {
        guard var schedule = rebootAt, let due = schedule.after.first else { return [] }
        let ran = start + 60 - schedule.bandStart
        guard ran >= due else { return [] }
        schedule.after.removeFirst()
        rebootAt = schedule.after.isEmpty ? nil : schedule
        return resetFirmware("reboot-at: the band has run \(ran / 60) min")
    }

    /// One UART frame around `payload` (≤ 517 bytes).
    public static func frame(_ channel: UARTChannel, _ payload: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: UARTFrame.maximumFrameByteCount)
        let count = payload.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { UARTFrame.encode(channel: channel, payload: input, into: $0) }
        }
        precondition(count != nil, "UART payload of \(payload.count) bytes exceeds \(UARTFrame.maximumPayload)")
        return Array(output[0..<count!])
    }

    /// ASCII text with everything else (control characters, bytes ≥ 0x7F) as \xNN, at most 200 bytes.
    static func printable<S: Sequence<UInt8>>(_ bytes: S) -> String {
        var text = ""
        for (index, byte) in bytes.enumerated() {
            if index == 200 { text += "…"; break }
            if (0x20..<0x7F).contains(byte) && byte != 0x5C {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                text += "\\x" + hexByte(byte)
            }
        }
        return text
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.prefix(64).map(hexByte).joined(separator: " ") + (bytes.count > 64 ? " …" : "")
    }

    private static func hexByte(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }
}
