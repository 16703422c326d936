import BandProtocol
import BandReader
import BandWire
import Testing

/// Every check a history transfer must pass before its records may be stored.
@Suite struct HistoryTransferTests {
    static let start: UInt32 = 1_796_032_800

    func records(_ count: Int, from first: Int = 0) -> [MinuteRecord] {
        (first..<first + count).map { i in
            MinuteRecord(minuteStart: Self.start + UInt32(i) * 60, utcOffset: .utc, flags: [.worn], steps: UInt16(i),
                         distanceDecimetres: 0, energyDecikilocalories: 0, heartRate: nil)
        }
    }

    func announced(_ count: UInt32, first: UInt32 = 100) -> HistoryFetchResponse {
        HistoryFetchResponse(status: .success, historyID: 7, firstSequence: first, count: count, gap: 0)
    }

    func packet(_ number: UInt16, _ records: [MinuteRecord]) -> [UInt8] {
        HistoryDataPacket(packetNumber: number, records: records).encodedBytes()
    }

    func crc(_ records: [MinuteRecord]) -> UInt32 {
        var crc = CRC32()
        for record in records { crc.update(record.encodedBytes()) }
        return crc.value
    }

    func feed(_ transfer: inout HistoryTransfer, _ bytes: [UInt8]) throws(HistoryTransferError) {
        let result: Result<Void, HistoryTransferError> = bytes.withUnsafeBytes { raw in
            do throws(HistoryTransferError) { try transfer.receive(raw); return .success(()) } catch { return .failure(error) }
        }
        try result.get()
    }

    @Test func intactTransferVerifies() throws {
        let all = records(5)
        var transfer = HistoryTransfer(announced: announced(5))
        try feed(&transfer, packet(0, Array(all[0..<3])))
        try feed(&transfer, packet(1, Array(all[3..<5])))
        try transfer.verify(HistoryTransferComplete(status: .success, packetCount: 2, recordCount: 5, crc: crc(all)))
        #expect(transfer.records == all)
        #expect(transfer.endSequence == 105)
        #expect(transfer.checksum == crc(all))
    }

    @Test func droppedPacketIsDetectedByItsNumber() throws {
        let all = records(3)
        var transfer = HistoryTransfer(announced: announced(3))
        try feed(&transfer, packet(0, [all[0]]))
        #expect(throws: HistoryTransferError.packetOutOfOrder(expected: 1, received: 2)) {
            try feed(&transfer, packet(2, [all[2]]))
        }
    }

    @Test func corruptedRecordIsDetectedByTheCRC() throws {
        let all = records(2)
        var bytes = packet(0, all)
        bytes[2 + 6] ^= 0x01   // one bit of the first record's steps
        var transfer = HistoryTransfer(announced: announced(2))
        try feed(&transfer, bytes)
        #expect(throws: HistoryTransferError.self) {
            try transfer.verify(HistoryTransferComplete(status: .success, packetCount: 1, recordCount: 2, crc: crc(all)))
        }
    }

    @Test func corruptedMinuteStartIsRefusedAtOnce() throws {
        var bytes = packet(0, records(1))
        bytes[2] ^= 0x01   // minute start no longer a multiple of 60
        var transfer = HistoryTransfer(announced: announced(1))
        #expect(throws: HistoryTransferError.self) { try feed(&transfer, bytes) }
    }

    @Test func shortTransferFailsTheCountCheck() throws {
        let all = records(3)
        var transfer = HistoryTransfer(announced: announced(3))
        try feed(&transfer, packet(0, Array(all[0..<2])))
        #expect(throws: HistoryTransferError.recordCountMismatch(announced: 3, band: 3, received: 2)) {
            try transfer.verify(HistoryTransferComplete(status: .success, packetCount: 2, recordCount: 3, crc: crc(all)))
        }
    }

    @Test func moreRecordsThanAnnouncedAreRefused() throws {
        var transfer = HistoryTransfer(announced: announced(1))
        #expect(throws: HistoryTransferError.tooManyRecords(announced: 1)) { try feed(&transfer, packet(0, records(2))) }
    }

    @Test func abortedTransferCannotBeVerified() throws {
        var transfer = HistoryTransfer(announced: announced(1))
        try feed(&transfer, packet(0, records(1)))
        #expect(throws: HistoryTransferError.bandAborted(.aborted)) {
            try transfer.verify(HistoryTransferComplete(status: .aborted, packetCount: 1, recordCount: 1, crc: 0))
        }
    }

    @Test func packetThatIsNotWholeRecordsIsMalformed() throws {
        var transfer = HistoryTransfer(announced: announced(1))
        var bytes = packet(0, records(1))
        bytes.removeLast()
        #expect(throws: HistoryTransferError.self) { try feed(&transfer, bytes) }
    }

    @Test func emptyTransferVerifiesWithCRCZero() throws {
        let transfer = HistoryTransfer(announced: announced(0))
        try transfer.verify(HistoryTransferComplete(status: .success, packetCount: 0, recordCount: 0, crc: 0))
        #expect(transfer.records.isEmpty)
    }
}
