import BandWire
import Testing

/// The Linux firmware's ATT server conversations (discovery, reads, writes, CCCDs, control points
/// and the error responses for malformed or refused requests), each run against the Linux band and
/// against the chip's band on the scripted board: the same request must get the same bytes.
///
/// Conversations that stay Linux-only live in BandFirmwareTests/ATTServerTests: the MTU exchange
/// (517 on Linux, the chip offers its 247-byte transmit buffer: `theMTUExchangeOffersTheChipsTransmitBuffer`),
/// Read Blob of a configured long device name (the chip's name is fixed), `--confirm deny` (the
/// chip always confirms), and the reader hanging up its socket (the chip's link is the UART).
@Suite("ATT conversations on the Linux band and the chip's band")
struct ATTConversationTests {
    @Test("Primary services are discovered in MTU-sized pages, 16-bit then 128-bit, ending with Attribute Not Found", arguments: BandKind.allCases)
    func primaryServiceDiscovery(_ kind: BandKind) throws {
        var c = try TwinConversation(kind)
        try c.exchange("10 0100 ffff 0028", "11 06 0100 0500 0018 0600 0900 0118 0a00 1200 0a18")
        try c.exchange("10 1300 ffff 0028", "11 06 1300 1600 0f18 1700 1e00 0d18 1f00 2400 1418")
        try c.exchange("10 2500 ffff 0028", "11 06 2500 2a00 0518")
        try c.exchange("10 2b00 ffff 0028", "11 14 2b00 3700 367a8b0e1f2d6c9a1a4b2f4e0100c0b5")
        try c.exchange("10 3800 ffff 0028", "01 10 3800 0a")
    }

    @Test("Find By Type Value finds services by 16- and 128-bit UUID and readable attributes by their bytes", arguments: BandKind.allCases)
    func findServiceByUUID(_ kind: BandKind) throws {
        var c = try TwinConversation(kind)
        try c.exchange("06 0100 ffff 0028 0d18", "07 1700 1e00")
        try c.exchange("06 0100 ffff 0028 367a8b0e1f2d6c9a1a4b2f4e0100c0b5", "07 2b00 3700")
        try c.exchange("06 0100 ffff 0028 9918", "01 06 0100 0a")
        // The shared server compares service UUIDs across widths: 0x180D in its 128-bit form.
        try c.exchange("06 0100 ffff 0028 fb349b5f80000080001000000d180000", "07 1700 1e00")
        // And any readable attribute by its bytes: the Body Sensor Location declaration (group end = itself).
        try c.exchange("06 0100 ffff 0328 021c00382a", "07 1b00 1b00")
        // A value the connection may not read never matches (Heart Rate Measurement is notify-only).
        try c.exchange("06 0100 ffff 372a 00", "01 06 0100 0a")
    }

    @Test("Characteristic declarations come back as properties, value handle, UUID", arguments: BandKind.allCases)
    func characteristicDiscovery(_ kind: BandKind) throws {
        var c = try TwinConversation(kind)
        try c.exchange("08 0100 0500 0328", "09 07 0200 020300 002a 0400 020500 012a")
        try c.exchange("08 1700 1e00 0328", "09 07 1800 101900 372a 1b00 021c00 382a 1d00 081e00 392a")
        try c.exchange("08 2b00 2f00 0328", "09 15 2c00 122d00 367a8b0e1f2d6c9a1a4b2f4e0200c0b5")
        try c.exchange("08 3800 ffff 0328", "01 08 3800 0a")
    }

    @Test("Find Information lists descriptors with their types", arguments: BandKind.allCases)
    func descriptorDiscovery(_ kind: BandKind) throws {
        var c = try TwinConversation(kind)
        try c.exchange("04 1900 1a00", "05 01 1900 372a 1a00 0229")
        try c.exchange("04 2d00 2d00", "05 02 2d00 367a8b0e1f2d6c9a1a4b2f4e0200c0b5")
        try c.exchange("04 3800 ffff", "01 04 3800 0a")
    }

    @Test("Reads of static values: device name, appearance, body sensor location, RSC feature, battery", arguments: BandKind.allCases)
    func staticReads(_ kind: BandKind) throws {
        var c = try TwinConversation(kind)
        try c.exchange("0a 0300", "0b " + Hex.encode(Array("BandKit M4".utf8)))
        try c.exchange("0a 0500", "0b c100")
        try c.exchange("0a 1c00", "0b 02")
        try c.exchange("0a 2400", "0b 0700")
        try c.exchange("0a 1500", "0b 64")
    }

    @Test("Read Blob: an offset at the end is empty, past the end Invalid Offset", arguments: BandKind.allCases)
    func readBlobBounds(_ kind: BandKind) throws {
        var c = try TwinConversation(kind)
        try c.exchange("0c 0300 0400", "0d " + Hex.encode(Array("BandKit M4".utf8.dropFirst(4))))
        try c.exchange("0c 0300 0a00", "0d")
        try c.exchange("0c 0300 0b00", "01 0c 0300 07")
    }

    @Test("Invalid handles, forbidden reads and writes, and bad ranges get their error codes", arguments: BandKind.allCases)
    func errorResponses(_ kind: BandKind) throws {
        var c = try TwinConversation(kind)
        try c.exchange("0a 0000", "01 0a 0000 01")
        try c.exchange("0a 3800", "01 0a 3800 01")
        try c.exchange("0a 1900", "01 0a 1900 02")
        try c.exchange("0a 1e00", "01 0a 1e00 02")
        try c.exchange("12 0300 41", "01 12 0300 03")
        try c.exchange("12 0100 41", "01 12 0100 03")
        try c.exchange("12 3800 41", "01 12 3800 01")
        try c.exchange("08 0500 0100 0328", "01 08 0500 01")
        try c.exchange("08 0000 0100 0328", "01 08 0000 01")
        try c.exchange("10 0100 ffff 0328", "01 10 0100 10")
    }

    @Test("A malformed request is Invalid PDU; unknown requests and queued writes are Request Not Supported", arguments: BandKind.allCases)
    func malformedAndUnsupported(_ kind: BandKind) throws {
        var c = try TwinConversation(kind)
        try c.exchange("0a 03", "01 0a 0000 04")
        try c.exchange("02", "01 02 0000 04")
        try c.exchange("08 0100 ffff 03", "01 08 0000 04")
        try c.exchange("12 03", "01 12 0000 04")
        try c.exchange("3f 0102", "01 3f 0000 06")
        // Request Not Supported names handle 0x0000 (Core 5.4 Vol 3 Part F §3.4.1.1).
        try c.exchange("16 0300 0000 41", "01 16 0000 06")
        try c.exchange("18 01", "01 18 0000 06")
        try c.exchange("0e 0300 0500", "01 0e 0000 06")
    }

    @Test("Commands and server PDUs from the client never get a response, not even an error", arguments: BandKind.allCases)
    func commandsAreSilent(_ kind: BandKind) throws {
        var c = try TwinConversation(kind)
        try c.send("52 0300 41")        // Write Command to a read-only value
        try c.send("52 3800 41")        // to an invalid handle
        try c.send("7f 00")             // unknown command
        try c.send("d2 0300 41 000000000000000000000000") // signed write
        try c.send("0b 41")             // a Read Response, which only a server sends
        c.expectSilence()
        try c.exchange("0a 0500", "0b c100") // and the band still answers
    }

    @Test("CCCD: notifications on, wrong length refused, unsupported bits refused, value reads back", arguments: BandKind.allCases)
    func clientConfiguration(_ kind: BandKind) throws {
        var c = try TwinConversation(kind)
        try c.exchange("0a 1a00", "0b 0000")
        try c.exchange("12 1a00 010000", "01 12 1a00 0d")
        try c.exchange("12 1a00 0200", "01 12 1a00 13")
        try c.exchange("12 1a00 0100", "13")
        try c.exchange("0a 1a00", "0b 0100")
    }

    @Test("Heart rate notifications arrive each second once enabled, in the full 0x2A37 format", arguments: BandKind.allCases)
    func heartRateNotifications(_ kind: BandKind) throws {
        var c = try TwinConversation(kind)
        #expect(try c.advance(seconds: 5).isEmpty)
        try c.exchange("12 1a00 0100", "13")
        let notifications = try c.advance(seconds: 10)
        #expect(notifications.count == 10)
        for pdu in notifications {
            #expect(pdu.count >= 5 && pdu[0] == 0x1B && pdu[1] == 0x19 && pdu[2] == 0x00, "\(Hex.encode(pdu))")
            guard pdu.count >= 5 else { continue }
            let flags = pdu[3]
            #expect(flags & 0x06 == 0x06, "sensor contact supported and detected while worn")
            #expect((40...200).contains(pdu[4]), "heart rate \(pdu[4])")
            if flags & 0x10 != 0 { #expect((pdu.count - 5 - (flags & 0x08 != 0 ? 2 : 0)) % 2 == 0) }
        }
        #expect(notifications.contains { $0.count > 3 && $0[3] & 0x08 != 0 }, "energy expended is included every tenth notification")
    }

    @Test("Heart Rate Control Point: 0x01 resets energy; any other value is 0x80 Control Point Not Supported", arguments: BandKind.allCases)
    func heartRateControlPoint(_ kind: BandKind) throws {
        var c = try TwinConversation(kind)
        try c.exchange("12 1e00 01", "13")
        try c.exchange("12 1e00 02", "01 12 1e00 80")
        try c.exchange("12 1e00 0101", "01 12 1e00 0d")
    }

    @Test("Indications wait for their confirmation; the control point is busy meanwhile", arguments: BandKind.allCases)
    func indicationNeedsConfirmation(_ kind: BandKind) throws {
        var c = try TwinConversation(kind)
        try c.exchange("12 3700 0200", "13")
        try c.send("12 3600 01 8877665544332211")
        c.expect("13")
        #expect(c.next()?.prefix(4) == [0x1D, 0x36, 0x00, 0x81], "the pairing response is indicated")
        c.expectSilence()
        try c.exchange("12 3600 01 8877665544332211", "01 12 3600 fe")
        try c.send("1e")
        c.expectSilence()
        try c.send("12 3600 01 8877665544332211")
        c.expect("13")
        #expect(c.next()?.prefix(4) == [0x1D, 0x36, 0x00, 0x81], "after the confirmation the control point answers again")
    }

    @Test("A control point written without indications enabled is CCCD Improperly Configured", arguments: BandKind.allCases)
    func controlPointNeedsIndications(_ kind: BandKind) throws {
        var c = try TwinConversation(kind)
        try c.exchange("12 3600 01 8877665544332211", "01 12 3600 fd")
    }

    @Test("Control point values: unknown opcode is Value Not Allowed, wrong length Invalid Attribute Value Length", arguments: BandKind.allCases)
    func controlPointValueErrors(_ kind: BandKind) throws {
        var c = try TwinConversation(kind)
        try c.exchange("12 3700 0200", "13")
        try c.exchange("12 3600 7f", "01 12 3600 13")
        try c.exchange("12 3600 01 88776655", "01 12 3600 0d")
        try c.exchange("12 3600 01 887766554433221100", "01 12 3600 0d")
    }
}

/// Malformed ATT on both bands: every request of a reader's session cut at every length, and with a
/// byte too many, must get the same answer from the chip as from the Linux band (Invalid PDU
/// with handle 0x0000, or the answer the shorter request deserves), and neither band may stop
/// answering afterwards.
@Suite("Malformed ATT: the chip answers every truncated request as the Linux band does")
struct MalformedATTTests {
    static let requests = [
        "04 0100 ffff", "06 0100 ffff 0028 0d18", "08 0100 ffff 0328", "0a 0300", "0c 0300 0400",
        "10 0100 ffff 0028", "12 1a00 0100", "12 3600 02 0100000000000000 0200000000000000", "16 0300 0000 41", "18 01",
        "52 1e00 01", "d2 0300 41 000000000000000000000000",
    ]

    @Test("Each request cut at every length and with a byte appended gets the same answer from both bands")
    func truncatedAndOverlongRequests() throws {
        var transcripts: [[String]] = []
        for kind in BandKind.allCases {
            var c = try TwinConversation(kind)
            try c.exchange("12 3700 0200", "13")
            // The MTU exchange cut short (whole, the answers differ by design: 517 and 247).
            try c.exchange("02", "01 02 0000 04")
            try c.exchange("02 17", "01 02 0000 04")
            for request in Self.requests {
                let full = hex(request)
                for length in 0...full.count {
                    try c.send(Hex.encode(Array(full.prefix(length))))
                    // Answer the indication a whole challenge request brings (unknown reader), so the next one is not busy.
                    if c.transcript.last?.hasPrefix("< 1d") == true { try c.send("1e") }
                }
                try c.send(Hex.encode(full + [0x00]))
                if c.transcript.last?.hasPrefix("< 1d") == true { try c.send("1e") }
            }
            while c.next() != nil {}
            try c.exchange("0a 0500", "0b c100") // still answering
            transcripts.append(c.transcript)
        }
        TwinConversation.expectSameTranscripts(transcripts, "truncated requests")
        #expect(transcripts[0].contains("< 010a000004"), "a Read Request cut short is Invalid PDU")
    }
}
