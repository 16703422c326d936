import BandFirmware
import BandLink
import BandProtocol
import BandTestSupport
import BandWire
import Testing

/// A paired conversation with history subscriptions on, after `minutes` of simulated wear.
private func historyConversation(minutes: Int, configure: (inout BandConfiguration) -> Void = { _ in }) throws -> Conversation {
    var configuration = testConfiguration()
    configure(&configuration)
    let c = try Conversation(configuration)
    try c.pair()
    try c.exchange("12 3100 0200", "13")
    try c.exchange("12 3400 0100", "13")
    c.band.advance(by: .seconds(Int64(minutes) * 60 + 1))
    _ = try c.drain()
    return c
}

/// What a reader collects from one transfer.
private struct Received {
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

private func fetch(_ c: Conversation, cursor: UInt32, maxCount: UInt16 = 0) throws -> Received {
    try c.exchange("12 3000 " + Hex.encode(HistoryFetchRequest(cursor: cursor, maxCount: maxCount).encodedBytes()), "13")
    var received = Received(response: try HistoryFetchResponse(parsingAll: try c.indication(on: Handles.historyControlPoint)))
    while true {
        if c.band.isConnected { c.band.pump() }
        // After a disconnect the datagrams already sent are still read, then the link reports closed.
        guard let pdu = try? c.next() else {
            if c.band.isConnected { continue }
            break
        }
        if pdu.first == 0x1B, pdu[1] == 0x33 {
            received.packets.append(try HistoryDataPacket(parsingAll: Array(pdu.dropFirst(3))))
        } else if pdu.first == 0x1D, pdu[1] == 0x30 {
            try c.send("1e")
            received.complete = try HistoryTransferComplete(parsingAll: Array(pdu.dropFirst(3)))
            break
        }
    }
    return received
}

private func acknowledge(_ c: Conversation, end: UInt32, crc: UInt32) throws -> HistoryAcknowledgeResponse {
    try c.exchange("12 3000 " + Hex.encode(HistoryAcknowledgeRequest(endSequence: end, crc: crc).encodedBytes()), "13")
    return try HistoryAcknowledgeResponse(parsingAll: try c.indication(on: Handles.historyControlPoint))
}

/// The Linux-only history conversations. Fetch, packets, CRC, acknowledgement, cursor gap and
/// cursor ahead, busy and abort run on the Linux band and on the chip's band alike in
/// ChipRuntimeTests/HistoryConversationTests; these stay here because the chip has no fault
/// injection (`--fault disconnect-mid-history`, `corrupt`, `drop` are bandsim options).
@Suite("History transfer: injected faults (Linux band)")
struct HistoryTransferTests {
    @Test("disconnect-mid-history drops the link halfway; nothing is erased and a refetch gets everything")
    func disconnectMidHistory() throws {
        let c = try historyConversation(minutes: 20) { $0.faults = [.disconnectMidHistory] }
        let key = try #require(c.band.flash.keys.entries.first?.key)
        let broken = try fetch(c, cursor: 0)
        #expect(!c.band.isConnected && broken.complete == nil && broken.packets.count == 10)
        #expect(c.band.flash.ring.oldest == 0)
        try c.reconnect()
        #expect(try c.authenticate(key: key).status == .success)
        try c.exchange("12 3100 0200", "13")
        try c.exchange("12 3400 0100", "13")
        let whole = try fetch(c, cursor: 0)
        #expect(whole.records.count >= 20 && whole.complete?.crc == whole.crc)
    }

    @Test("A corrupted notification is caught by the transfer CRC")
    func corruptionCaughtByCRC() throws {
        let c = try historyConversation(minutes: 30) { $0.faults = [.corrupt(0.2)] }
        let got = try fetch(c, cursor: 0)
        #expect(got.complete?.status == .success)
        #expect(got.complete?.crc != got.crc, "with 30 packets at 20 % corruption, some record bytes changed")
    }

    @Test("A dropped notification shows as a gap in packet numbers")
    func dropShowsInPacketNumbers() throws {
        let c = try historyConversation(minutes: 30) { $0.faults = [.drop(0.2)] }
        let got = try fetch(c, cursor: 0)
        #expect(got.packets.count < 30)
        #expect(got.packets.map(\.packetNumber) != Array(0..<UInt16(got.packets.count)))
        #expect(got.complete?.packetCount == 30)
    }
}

/// Two readers' positions in the state file (Linux only: the chip keeps them in its flash pages).
/// The two-reader conversations themselves (acknowledgements, erasure, overflow, a late reader, a
/// reset) run on the Linux band and the chip's band in ChipRuntimeTests/TwoReaderConversationTests.
@Suite("History with two paired readers: per-reader positions in the state file (Linux band)")
struct TwoReaderHistoryTests {
    static let phone: UInt64 = 0x1122_3344_5566_7788
    static let laptop: UInt64 = 0x0A0B_0C0D_0E0F_1011

    /// Reconnects as `reader` (authenticated with `key`) with history subscriptions on.
    private func connect(_ c: Conversation, as reader: UInt64, key: BandKey) throws {
        try c.reconnect()
        #expect(try c.authenticate(readerID: reader, key: key).status == .success)
        try c.exchange("12 3100 0200", "13")
        try c.exchange("12 3400 0100", "13")
    }

    /// A band with the phone paired (and connected) and the laptop paired too.
    private func twoReaders(minutes: Int, configure: (inout BandConfiguration) -> Void = { _ in })
        throws -> (Conversation, phoneKey: BandKey, laptopKey: BandKey) {
        let c = try historyConversation(minutes: 0, configure: configure)
        let phoneKey = try #require(c.band.flash.keys.key(for: Self.phone))
        try c.reconnect()
        let laptopKey = try #require(try c.pair(readerID: Self.laptop))
        c.band.advance(by: .seconds(Int64(minutes) * 60))
        _ = try c.drain()
        return (c, phoneKey, laptopKey)
    }

    @Test("Per-reader positions survive the state file; a version-1 file is still read, positions at its oldest record")
    func positionsSurviveTheStateFile() throws {
        let (c, phoneKey, _) = try twoReaders(minutes: 6)
        try connect(c, as: Self.phone, key: phoneKey)
        let phone = try fetch(c, cursor: 0)
        _ = try acknowledge(c, end: 6, crc: phone.crc)
        let image = c.band.flash.serialized()
        #expect(Array(image[0..<8]) == Array("BKFLASH".utf8) + [0x02])
        let restored = try image.withUnsafeBytes { try FlashImage(parsing: $0, capacity: 10_080) }
        #expect(restored.keys.entries.map(\.acknowledged).sorted() == [0, 6])
        #expect(restored.serialized() == image)

        // The same flash as version 1 wrote it: 28-byte key slots, no positions.
        var version1: [UInt8] = Array(image[0..<32])
        version1[7] = 0x01
        for slot in 0..<2 { version1 += image[(32 + slot * 32)..<(32 + slot * 32 + 28)] }
        version1 += image[(32 + 64)..<(image.count - 4)]
        var crc = CRC32()
        crc.update(version1)
        version1 += [UInt8(crc.value & 0xFF), UInt8(crc.value >> 8 & 0xFF), UInt8(crc.value >> 16 & 0xFF), UInt8(crc.value >> 24)]
        let old = try version1.withUnsafeBytes { try FlashImage(parsing: $0, capacity: 10_080) }
        #expect(old.keys.entries.map(\.acknowledged) == [0, 0], "version 1 knew one position: the oldest record")
        #expect(old.ring.count == 6 && old.keys.entries.map(\.readerID).sorted() == [Self.laptop, Self.phone].sorted())
    }
}
