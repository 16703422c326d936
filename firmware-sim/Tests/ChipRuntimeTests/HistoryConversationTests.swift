import BandProtocol
import BandWire
import Testing

/// What a reader collects from one transfer.
struct Received {
    var response: HistoryFetchResponse
    var packets: [HistoryDataPacket] = []
    var complete: HistoryTransferComplete?
    var records: [MinuteRecord] { packets.flatMap { (try? $0.records()) ?? [] } }
    var crc: UInt32 {
        var crc = CRC32()
        for packet in packets { crc.update(packet.recordBytes.array) }
        return crc.value
    }
}

extension TwinConversation {
    /// Paired, history subscriptions on, after `minutes` of wear (and `mtu` exchanged first).
    static func history(_ kind: BandKind, minutes: Int, mtu: String? = nil, setup: BandSetup = BandSetup()) throws -> TwinConversation {
        var c = try TwinConversation(kind, setup)
        if let mtu {
            // The answers differ by design (517 on Linux, 247 on the chip); ATT_MTU is the smaller.
            try c.send("02 " + mtu)
            #expect(c.next()?.first == 0x03)
        }
        _ = try c.pair()
        try c.exchange("12 3100 0200", "13")
        try c.exchange("12 3400 0100", "13")
        _ = try c.advance(seconds: minutes * 60 + 1)
        return c
    }

    mutating func historyControl(_ value: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws -> [UInt8] {
        try send("12 3000 " + Hex.encode(value))
        expect("13", sourceLocation: sourceLocation)
        return try indication(on: 0x0030, sourceLocation: sourceLocation)
    }

    /// Fetches from `cursor` and collects the transfer until Transfer Complete (confirmed); a
    /// transfer that stalls ends after a bounded number of polls with `complete` nil.
    mutating func fetch(cursor: UInt32, maxCount: UInt16 = 0) throws -> Received {
        var received = Received(response: try HistoryFetchResponse(parsingAll: historyControl(HistoryFetchRequest(cursor: cursor, maxCount: maxCount).encodedBytes())))
        for _ in 0..<20_000 {   // a day of records at one a packet, and the polls between bursts
            guard let pdu = next() else { try poll(); continue }
            if pdu.first == 0x1B, pdu.count >= 3, pdu[1] == 0x33 {
                received.packets.append(try HistoryDataPacket(parsingAll: Array(pdu.dropFirst(3))))
            } else if pdu.first == 0x1D, pdu.count >= 3, pdu[1] == 0x30 {
                try send("1e")
                received.complete = try HistoryTransferComplete(parsingAll: Array(pdu.dropFirst(3)))
                break
            }
        }
        return received
    }

    mutating func acknowledge(end: UInt32, crc: UInt32) throws -> HistoryAcknowledgeResponse {
        try HistoryAcknowledgeResponse(parsingAll: historyControl(HistoryAcknowledgeRequest(endSequence: end, crc: crc).encodedBytes()))
    }
}

/// The Linux firmware's history conversations (fetch, data packets, CRC, acknowledgement, cursor
/// gap and cursor ahead, busy and abort, the CCCD rule), each run against the Linux band and the
/// chip's band. Linux-only ones stay in BandFirmwareTests/HistoryTransferTests: injected faults
/// (`--fault disconnect-mid-history`, `corrupt`, `drop`: bandsim options the chip has not), the
/// in-memory ring (`flash.ring.oldest`), a configurable ring size, the log lines and the state file.
@Suite("History conversations on the Linux band and the chip's band")
struct HistoryConversationTests {
    @Test("Fetch from 0 at the default MTU: one record per packet, numbered 0…n−1, CRC over the records", arguments: BandKind.allCases)
    func fetchAtDefaultMTU(_ kind: BandKind) throws {
        var c = try TwinConversation.history(kind, minutes: 10)
        let got = try c.fetch(cursor: 0)
        #expect(got.response.status == .success && got.response.firstSequence == 0 && got.response.gap == 0)
        let count = Int(got.response.count)
        #expect(count == 10, "a record per minute of wear")
        #expect(got.packets.map(\.packetNumber) == Array(0..<UInt16(count)))
        #expect(got.packets.allSatisfy { $0.recordCount == 1 })
        #expect(got.complete == HistoryTransferComplete(status: .success, packetCount: UInt32(count), recordCount: UInt32(count), crc: got.crc))
        let starts = got.records.map(\.minuteStart)
        #expect(zip(starts, starts.dropFirst()).allSatisfy { $1 == $0 + 60 }, "consecutive minutes")
    }

    @Test("At ATT_MTU 247 each packet carries 15 records", arguments: BandKind.allCases)
    func largerMTUFillsPackets(_ kind: BandKind) throws {
        var c = try TwinConversation.history(kind, minutes: 40, mtu: "f700")
        let got = try c.fetch(cursor: 0)
        #expect(got.records.count == Int(got.response.count) && got.records.count == 40)
        #expect(got.packets.map(\.recordCount) == [15, 15, 10])
        #expect(got.complete?.crc == got.crc)
    }

    @Test("max records slices the history; each slice is acknowledged and erased, never before", arguments: BandKind.allCases)
    func slicedFetchAndAcknowledge(_ kind: BandKind) throws {
        var c = try TwinConversation.history(kind, minutes: 12)
        try Self.slicedFetchAndAcknowledge(&c)
    }

    static func slicedFetchAndAcknowledge(_ c: inout TwinConversation) throws {
        let first = try c.fetch(cursor: 0, maxCount: 5)
        #expect(first.records.count == 5)
        let refetched = try c.fetch(cursor: 0, maxCount: 5)
        #expect(refetched.response.firstSequence == 0 && refetched.records == first.records, "nothing erased before the acknowledgement")
        let ack = try c.acknowledge(end: 5, crc: refetched.crc)
        #expect(ack.status == .success && ack.oldestSequence == 5 && ack.nextSequence == 12)
        let second = try c.fetch(cursor: 5, maxCount: 5)
        #expect(second.response.firstSequence == 5 && second.records.count == 5)
        #expect(second.records.first?.minuteStart == first.records.last!.minuteStart + 60)
    }

    @Test("An acknowledgement of data the band never sent is refused and erases nothing", arguments: BandKind.allCases)
    func acknowledgementOfUnsentDataRefused(_ kind: BandKind) throws {
        var c = try TwinConversation.history(kind, minutes: 5)
        #expect(try c.acknowledge(end: 5, crc: 0).status == .acknowledgementRejected)
        let got = try c.fetch(cursor: 0, maxCount: 3)
        #expect(try c.acknowledge(end: 5, crc: got.crc).status == .acknowledgementRejected, "beyond what was sent")
        #expect(try c.acknowledge(end: 3, crc: got.crc ^ 1).status == .acknowledgementRejected, "wrong CRC")
        #expect(try c.acknowledge(end: 3, crc: got.crc).status == .success)
    }

    @Test("A transfer completed on an earlier connection cannot be acknowledged on a new one", arguments: BandKind.allCases)
    func acknowledgementIsPerConnection(_ kind: BandKind) throws {
        var c = try TwinConversation(kind)
        let key = try #require(try c.pair())
        try c.exchange("12 3100 0200", "13")
        try c.exchange("12 3400 0100", "13")
        _ = try c.advance(seconds: 4 * 60 + 1)
        let got = try c.fetch(cursor: 0)
        try c.reconnect()
        #expect(try c.authenticate(key: key).0.status == .success)
        try c.exchange("12 3100 0200", "13")
        try c.exchange("12 3400 0100", "13")
        #expect(try c.acknowledge(end: got.response.count, crc: got.crc).status == .acknowledgementRejected)
        #expect(try c.fetch(cursor: 0).response.firstSequence == 0, "nothing erased")
    }

    @Test("A cursor older than the oldest record reports the gap; one beyond the newest is 'cursor ahead'", arguments: BandKind.allCases)
    func gapAndCursorAhead(_ kind: BandKind) throws {
        var c = try TwinConversation.history(kind, minutes: 6)
        let first = try c.fetch(cursor: 0, maxCount: 4)
        _ = try c.acknowledge(end: 4, crc: first.crc)
        let again = try c.fetch(cursor: 1)
        #expect(again.response.gap == 3 && again.response.firstSequence == 4 && again.response.count == 2)
        let ahead = try HistoryFetchResponse(parsingAll: c.historyControl(HistoryFetchRequest(cursor: 1_000, maxCount: 0).encodedBytes()))
        #expect(ahead.status == .cursorAhead && ahead.firstSequence == 4 && ahead.count == again.response.count)
        #expect(ahead.historyID == again.response.historyID)
    }

    @Test("A fetch while a transfer runs is Procedure Already In Progress; abort ends it unacknowledgeable", arguments: BandKind.allCases)
    func busyAndAbort(_ kind: BandKind) throws {
        var c = try TwinConversation.history(kind, minutes: 30)
        try Self.busyAndAbort(&c)
    }

    static func busyAndAbort(_ c: inout TwinConversation) throws {
        _ = try c.historyControl(hex("01 00000000 0000"))
        while c.next() != nil {}
        try c.send("12 3000 01 00000000 0000")
        var refused: [UInt8]?
        while let pdu = c.next() { if pdu.first == 0x01 { refused = pdu } }
        #expect(refused.map(Hex.encode) == "01123000fe")
        try c.send("12 3000 03")
        var complete: HistoryTransferComplete?
        for _ in 0..<1_000 where complete == nil {
            guard let pdu = c.next() else { try c.poll(); continue }
            if pdu.first == 0x1D, pdu.count >= 3, pdu[1] == 0x30 {
                try c.send("1e")
                complete = try HistoryTransferComplete(parsingAll: Array(pdu.dropFirst(3)))
            }
        }
        let done = try #require(complete)
        #expect(done.status == .aborted && done.recordCount < 30)
        #expect(try c.acknowledge(end: 30, crc: done.crc).status == .acknowledgementRejected)
    }

    @Test("Fetching without History Data notifications enabled is CCCD Improperly Configured", arguments: BandKind.allCases)
    func fetchNeedsDataNotifications(_ kind: BandKind) throws {
        var c = try TwinConversation(kind)
        _ = try c.pair()
        try c.exchange("12 3100 0200", "13")
        try c.exchange("12 3000 01 00000000 0000", "01 12 3000 fd")
    }

    @Test("An empty transfer still completes, with CRC 0", arguments: BandKind.allCases)
    func emptyTransfer(_ kind: BandKind) throws {
        var c = try TwinConversation.history(kind, minutes: 2)
        let all = try c.fetch(cursor: 0)
        #expect(all.response.count == 2)
        let got = try c.fetch(cursor: all.response.count)
        #expect(got.response.status == .success && got.response.count == 0)
        #expect(got.complete == HistoryTransferComplete(status: .success, packetCount: 0, recordCount: 0, crc: 0))
    }

    /// Besides each band meeting the expectations, the two bands must hold these conversations
    /// identically: every PDU both ways, in order, the timing of every burst included. The
    /// comparison starts after pairing: each band draws its pairing key from its own random
    /// source, so the keys (and so the pairing indications) differ by design.
    @Test("Both bands hold the history conversations byte for byte, burst for burst")
    func bothBandsHoldTheSameConversation() throws {
        let conversations: [(minutes: Int, body: (inout TwinConversation) throws -> Void)] = [
            (12, Self.slicedFetchAndAcknowledge), (30, Self.busyAndAbort),
        ]
        for (index, conversation) in conversations.enumerated() {
            var transcripts: [[String]] = []
            for kind in BandKind.allCases {
                var c = try TwinConversation.history(kind, minutes: conversation.minutes)
                c.restartTranscript()
                try conversation.body(&c)
                transcripts.append(c.transcript)
            }
            TwinConversation.expectSameTranscripts(transcripts, "conversation \(index)")
        }
    }
}
