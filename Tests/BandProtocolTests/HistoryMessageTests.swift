import BandProtocol
import BandTestSupport
import BandWire
import Testing

@Suite("History Control Point messages and data packets")
struct HistoryMessageTests {
    @Test("Fetch request: cursor and max count")
    func fetchRequest() {
        checkCodec(HistoryFetchRequest(cursor: 0x0001_0203, maxCount: 1440), "01 03020100 a005")
        checkCodec(HistoryFetchRequest(cursor: 0), "01 00000000 0000")
    }

    @Test("Acknowledge request: end sequence and CRC")
    func acknowledgeRequest() {
        checkCodec(HistoryAcknowledgeRequest(endSequence: 10_080, crc: 0xCBF4_3926), "02 60270000 2639f4cb")
    }

    @Test("Abort request is the bare opcode")
    func abortRequest() {
        checkCodec(HistoryAbortRequest(), "03")
    }

    @Test("Fetch response: 19 bytes, fits a 20-byte indication")
    func fetchResponse() {
        let response = HistoryFetchResponse(status: .success, historyID: 0xDEAD_BEEF, firstSequence: 100, count: 20, gap: 7)
        checkCodec(response, "81 00 10 efbeadde 64000000 14000000 07000000")
        #expect(response.endSequence == 120)
        #expect(response.encodedBytes().count <= 20)
    }

    @Test("Transfer complete and acknowledge response")
    func completionMessages() {
        checkCodec(HistoryTransferComplete(status: .success, packetCount: 2, recordCount: 30, crc: 0x0102_0304),
                   "82 00 02000000 1e000000 04030201")
        checkCodec(HistoryTransferComplete(status: .aborted, packetCount: 1, recordCount: 1, crc: 0), "82 03 01000000 01000000 00000000")
        checkCodec(HistoryAcknowledgeResponse(status: .acknowledgementRejected, oldestSequence: 5, nextSequence: 9),
                   "83 02 05000000 09000000")
    }

    @Test("Request and response dispatch on the opcode; unknown opcodes are unsupported")
    func dispatch() throws {
        #expect(try HistoryRequest(parsingAll: bytes("03")) == .abort(HistoryAbortRequest()))
        checkCodec(HistoryRequest.fetch(HistoryFetchRequest(cursor: 1, maxCount: 2)), "01 01000000 0200")
        checkCodec(HistoryResponse.acknowledge(HistoryAcknowledgeResponse(status: .success, oldestSequence: 1, nextSequence: 2)),
                   "83 00 01000000 02000000")
        #expect(parseError(HistoryRequest.self, "04") == ParseError(.unsupported, at: 0, field: "history request opcode"))
        #expect(parseError(HistoryResponse.self, "01 00000000 0000")?.kind == .unsupported)
    }

    @Test("Records per data packet follow the MTU: 1 at 23, 15 at 247, 31 at 517")
    func recordCapacity() {
        #expect(HistoryDataPacket.recordCapacity(mtu: 23) == 1)
        #expect(HistoryDataPacket.recordCapacity(mtu: 185) == 11)
        #expect(HistoryDataPacket.recordCapacity(mtu: 247) == 15)
        #expect(HistoryDataPacket.recordCapacity(mtu: 517) == 31)
        #expect(HistoryDataPacket.recordCapacity(mtu: 20) == 0)
    }

    @Test("A data packet at the default MTU: header plus one record, exactly 18 bytes")
    func dataPacketVector() throws {
        let record = MinuteRecord(minuteStart: 60, utcOffset: .utc, flags: [], steps: 0, distanceDecimetres: 0,
                                  energyDecikilocalories: 0, heartRate: nil)
        let packet = HistoryDataPacket(packetNumber: 0x0102, records: [record])
        checkCodec(packet, "0201 3c000000 00 00 0000 0000 0000 00 00 00 00", fixedLength: false)
        #expect(try packet.records() == [record])
    }

    @Test("A data packet with several records decodes each in order")
    func multiRecordPacket() throws {
        let records = (0..<15).map { i in
            MinuteRecord(minuteStart: UInt32(60 * i), utcOffset: .utc, flags: .worn, steps: UInt16(i),
                         distanceDecimetres: UInt16(i * 7), energyDecikilocalories: 3, heartRate: nil)
        }
        let packet = HistoryDataPacket(packetNumber: 7, records: records)
        let decoded = try HistoryDataPacket(parsingAll: packet.encodedBytes())
        #expect(decoded.recordCount == 15)
        #expect(try decoded.records() == records)
    }

    @Test("A data packet that is not a whole number of records is refused where the partial record starts")
    func partialRecord() {
        let oneAndABit = "0000" + String(repeating: "3c000000000000000000000000000000", count: 1) + "01"
        #expect(parseError(HistoryDataPacket.self, oneAndABit)?.offset == 18)
        #expect(parseError(HistoryDataPacket.self, "0000")?.kind == .truncated)
    }

    @Test("A bad record inside a packet is reported at its offset in the packet")
    func badRecordOffset() throws {
        let packet = try HistoryDataPacket(parsingAll: bytes("0000 3c000000 00 00 0000 0000 0000 00 00 00 00 3d000000 00 00 0000 0000 0000 00 00 00 00"))
        #expect(throws: ParseError(.invalidValue, at: 18, field: "minute start (not on a minute boundary)")) {
            try packet.record(at: 1)
        }
    }
}
