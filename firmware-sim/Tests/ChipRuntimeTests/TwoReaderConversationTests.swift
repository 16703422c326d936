import BandFirmware
import BandProtocol
import BandWire
import Testing

/// Two readers paired with one band (a phone and a laptop), on the Linux band and on the chip's
/// band: each has its own acknowledged position, and one reader's acknowledgement never erases
/// what the other has not fetched (docs/protocol.md "Several readers"). The
/// positions are read from what the band keeps (the chip's: its flash pages). The state file's
/// formats stay Linux-only (BandFirmwareTests/HistoryTransferTests).
@Suite("History with two paired readers on the Linux band and the chip's band")
struct TwoReaderConversationTests {
    static let phone: UInt64 = 0x1122_3344_5566_7788
    static let laptop: UInt64 = 0x0A0B_0C0D_0E0F_1011

    struct Readers {
        var c: TwinConversation
        var phoneKey: BandKey
        var laptopKey: BandKey

        /// Reconnects as `reader` (authenticated with its key) with history subscriptions on.
        mutating func connect(as reader: UInt64, sourceLocation: SourceLocation = #_sourceLocation) throws {
            try c.reconnect()
            let key = reader == TwoReaderConversationTests.phone ? phoneKey : laptopKey
            #expect(try c.authenticate(readerID: reader, key: key).0.status == .success, sourceLocation: sourceLocation)
            try c.exchange("12 3100 0200", "13", sourceLocation: sourceLocation)
            try c.exchange("12 3400 0100", "13", sourceLocation: sourceLocation)
        }

        /// The reader's acknowledged position as the band keeps it.
        mutating func position(of reader: UInt64) -> UInt32? {
            c.band.stored().readers.first { $0.readerID == reader }?.acknowledged
        }
    }

    /// A band with the phone paired (and connected) and the laptop paired too, after `minutes`.
    private func twoReaders(_ kind: BandKind, minutes: Int) throws -> Readers {
        var c = try TwinConversation.history(kind, minutes: 0)
        let phoneKey = try #require(c.band.stored().readers.first { $0.readerID == Self.phone }?.key)
        try c.reconnect()
        let laptopKey = try #require(try c.pair(readerID: Self.laptop))
        _ = try c.advance(seconds: minutes * 60)
        return Readers(c: c, phoneKey: phoneKey, laptopKey: laptopKey)
    }

    @Test("The phone's acknowledgement keeps the records the laptop has not fetched; the laptop's erases them", arguments: BandKind.allCases)
    func oneReadersAcknowledgementKeepsTheOthersRecords(_ kind: BandKind) throws {
        var r = try twoReaders(kind, minutes: 10)
        try r.connect(as: Self.phone)
        let phone = try r.c.fetch(cursor: 0)
        #expect(phone.records.count == 10)
        let phoneAck = try r.c.acknowledge(end: 10, crc: phone.crc)
        #expect(phoneAck == HistoryAcknowledgeResponse(status: .success, oldestSequence: 0, nextSequence: 10),
                "oldest stays 0: the laptop has not acknowledged anything")
        #expect(r.c.band.stored().oldest == 0)
        #expect(r.c.band.stored().records.count == 10)

        try r.connect(as: Self.laptop)
        let laptop = try r.c.fetch(cursor: 0)
        #expect(laptop.response.gap == 0 && laptop.records == phone.records, "the laptop gets every minute the phone got")
        let laptopAck = try r.c.acknowledge(end: 10, crc: laptop.crc)
        #expect(laptopAck == HistoryAcknowledgeResponse(status: .success, oldestSequence: 10, nextSequence: 10),
                "both acknowledged: erased")
        let kept = r.c.band.stored()
        #expect(kept.oldest == 10 && kept.records.isEmpty, "erased where the band keeps them too")
        if let lines = r.c.band.logLines { #expect(lines.contains { $0.contains("erased 10 records") }) }
    }

    @Test("Erasure follows the reader furthest behind, whichever acknowledges first", arguments: BandKind.allCases)
    func erasureFollowsTheSlowestReader(_ kind: BandKind) throws {
        var r = try twoReaders(kind, minutes: 12)
        try r.connect(as: Self.laptop)
        let laptop = try r.c.fetch(cursor: 0, maxCount: 4)
        #expect(try r.c.acknowledge(end: 4, crc: laptop.crc).oldestSequence == 0)
        try r.connect(as: Self.phone)
        let phone = try r.c.fetch(cursor: 0)
        #expect(try r.c.acknowledge(end: 12, crc: phone.crc).oldestSequence == 4, "the laptop is at 4")
        #expect(r.c.band.stored().readers.map(\.acknowledged).sorted() == [4, 12])
        #expect(r.c.band.stored().oldest == 4)
    }

    /// The ring's capacity is the chip's on both bands (1440 minutes): 20 minutes, the phone's
    /// acknowledgement, then 1435 more, so the 15 oldest records, which the laptop never saw,
    /// are overwritten.
    @Test("When the ring must overwrite, the reader that missed records is told how many; the other loses nothing", arguments: BandKind.allCases)
    func overflowIsReportedToTheReaderThatMissedRecords(_ kind: BandKind) throws {
        let capacity = UInt32(ChipBand.historyCapacity)
        var r = try twoReaders(kind, minutes: 20)
        try r.connect(as: Self.phone)
        let first = try r.c.fetch(cursor: 0)
        #expect(try r.c.acknowledge(end: 20, crc: first.crc).oldestSequence == 0, "the laptop holds the records")
        _ = try r.c.advance(seconds: (Int(capacity) - 5) * 60)
        let total = 20 + capacity - 5
        let phone = try r.c.fetch(cursor: 20)
        #expect(phone.response.gap == 0 && phone.records.count == Int(total - 20), "the phone's records were all still there")
        #expect(try r.c.acknowledge(end: total, crc: phone.crc).oldestSequence == 15)

        try r.connect(as: Self.laptop)
        let laptop = try r.c.fetch(cursor: 0)
        #expect(laptop.response.gap == 15 && laptop.response.firstSequence == 15, "the loss, with its count")
        #expect(laptop.records.count == Int(capacity))
        #expect(try r.c.acknowledge(end: total, crc: laptop.crc).oldestSequence == total)
        #expect(r.c.band.stored().readers.map(\.acknowledged) == [total, total])
    }

    @Test("A reader paired later holds back only what the band still has", arguments: BandKind.allCases)
    func aNewReaderStartsAtTheOldestStoredRecord(_ kind: BandKind) throws {
        var c = try TwinConversation.history(kind, minutes: 8)
        let got = try c.fetch(cursor: 0)
        #expect(try c.acknowledge(end: 8, crc: got.crc).oldestSequence == 8, "one reader: erased at once, as before")
        try c.reconnect()
        _ = try c.pair(readerID: Self.laptop)
        #expect(c.band.stored().readers.first { $0.readerID == Self.laptop }?.acknowledged == 8)
    }

    @Test("Per-reader positions survive a reset; the slower reader still gets its records", arguments: BandKind.allCases)
    func positionsSurviveAReset(_ kind: BandKind) throws {
        var r = try twoReaders(kind, minutes: 6)
        try r.connect(as: Self.phone)
        let phone = try r.c.fetch(cursor: 0)
        _ = try r.c.acknowledge(end: 6, crc: phone.crc)
        try r.c.reset()
        #expect(r.position(of: Self.phone) == 6 && r.position(of: Self.laptop) == 0)
        try r.connect(as: Self.laptop)
        let laptop = try r.c.fetch(cursor: 0)
        #expect(laptop.response.gap == 0 && laptop.records == phone.records)
        #expect(try r.c.acknowledge(end: 6, crc: laptop.crc).oldestSequence == 6)
    }
}
