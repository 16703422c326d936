import UARTFraming

/// The host side of `bandsim serve --firmware`: the decisions between one reader's ATT bearer
/// and the firmware's UART, without I/O (design principle 2). The caller feeds it what happened
/// (a reader connected, a PDU from the reader, bytes from the UART, the reader left) and carries
/// out the actions it returns (bytes to the UART, a PDU to the reader, a new ATT_MTU, a log line).
///
/// One codec on both sides: frames are built and parsed by UARTFraming, the code the image runs.
/// Link messages follow docs/protocol.md "UART framing": 0x02 connect and 0x03 disconnect go to
/// the firmware; 0x80 booted and debug 0x84 log lines come back as log actions, debug 0x87 (a
/// minute the firmware recorded) as ``Action/minuteRecorded(sequence:record:)``. An ATT PDU from
/// the firmware while no reader is connected is dropped and counted (a reader that left just
/// before a notification). ATT_MTU: the bridge sees the reader's Exchange MTU Request and the
/// firmware's response, and reports the MTU both now use, so the reader's bearer accepts PDUs
/// up to it.
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
        /// The firmware booted (0x80; the first boot or after a reset): it has no seed, clock speed
        /// or band start until the host sends them (0x01, 0x09, 0x10: the host is its clock, as a
        /// phone is a band's after a reboot). Comes before the reconnection of a connected reader.
        case configureFirmware
        /// Close the reader's link now (``resetMidHistory``: a band's reset takes its radio link
        /// with it); the bridge already counts the reader as gone.
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
        /// ATT frames from the firmware between a ``ResetMidHistory`` reset and the next boot.
        public var droppedDuringReset = 0
        public init() {}
    }

    public private(set) var counters = Counters()
    public private(set) var readerConnected = false
    public var decoderCounters: UARTFrameDecoder.Counters { decoder.counters }
    private var decoder = UARTFrameDecoder()
    /// The reader's asked ATT_MTU while an Exchange MTU Request is outstanding.
    private var requestedMTU: Int?
    /// The pending ``ResetMidHistory`` fault (nil once it has fired).
    public private(set) var resetMidHistory: ResetMidHistory?
    /// History Data notifications forwarded in the current connection.
    private var historyPacketsThisConnection = 0
    /// Reset requested by ``resetMidHistory``; the firmware has not booted since.
    private var resetting = false
    /// True from a ``resetMidHistory`` reset until the firmware's next boot: the caller accepts no
    /// reader meanwhile (its first PDUs would reach a chip that is not running; the reader's
    /// connection waits in the listener's backlog instead).
    public var resetInProgress: Bool { resetting }

    public init(resetMidHistory: ResetMidHistory? = nil) {
        precondition(resetMidHistory.map { $0.afterPackets > 0 } ?? true, "reboot-mid-history needs a packet count of at least 1")
        self.resetMidHistory = resetMidHistory
    }

    public mutating func readerDidConnect() -> [Action] {
        readerConnected = true
        requestedMTU = nil
        historyPacketsThisConnection = 0
        return [.toFirmware(Self.frame(.link, [0x02]))]
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
                    resetting = true
                    readerConnected = false
                    requestedMTU = nil
                    actions += [.log("bridge: reboot-mid-history: resetting the firmware (link 0x0A) after history data packet "
                                     + "\(fault.afterPackets) of this connection; dropping the reader's link"),
                                .toFirmware(Self.frame(.link, [0x0A])), .dropReader]
                }
            }
            return actions
        case .link:
            if payload.first == 0x80 {
                counters.boots += 1
                let afterOurReset = resetting
                resetting = false
                // A reset while a reader is connected: the firmware starts with no connection, so
                // tell it again that one is there (its ATT state starts fresh, as after a real
                // reconnection; the reader sees a band that forgot its MTU).
                var actions: [Action] = [.log("firmware: booted (boot \(counters.boots) seen by this bridge)"), .configureFirmware]
                if afterOurReset {
                    actions.insert(.log("bridge: reboot-mid-history: \(counters.droppedDuringReset) ATT frame(s) of the reset firmware dropped"), at: 1)
                }
                if readerConnected { actions.append(.toFirmware(Self.frame(.link, [0x02]))) }
                return actions
            }
            return [.log("firmware: link message \(Self.hex(payload))")]
        case .debug:
            if payload.first == 0x84 {
                return [.log("firmware: " + Self.printable(payload.dropFirst()))]
            }
            if payload.first == 0x86, payload.count == 21 {
                let field = { (index: Int) in
                    (0..<4).reduce(UInt32(0)) { $0 | UInt32(payload[1 + index * 4 + $1]) << UInt32(8 * $1) }
                }
                return [.log("firmware: flash: boot \(field(0)), \(field(1)) damaged boot-record page(s), \(field(2)) minute(s) "
                             + "recovered, \(field(3)) damaged slot(s) skipped, next minute \(field(4))")]
            }
            if payload.first == 0x87 {
                guard payload.count == 5 + Self.minuteRecordByteCount else {
                    counters.malformedDebugMessages += 1
                    return [.log("firmware: minute message of \(payload.count) bytes, not \(5 + Self.minuteRecordByteCount); ignored: \(Self.hex(payload))")]
                }
                let sequence = UInt32(payload[1]) | UInt32(payload[2]) << 8 | UInt32(payload[3]) << 16 | UInt32(payload[4]) << 24
                counters.minutesRecorded += 1
                return [.minuteRecorded(sequence: sequence, record: Array(payload[5...]))]
            }
            return [.log("firmware: debug message \(Self.hex(payload))")]
        default:
            return [.log("firmware: frame on unknown channel \(channel.rawValue) (\(payload.count) bytes) ignored")]
        }
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
