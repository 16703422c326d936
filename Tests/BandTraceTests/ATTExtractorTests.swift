import BandTestSupport
import BandWire
import Testing
@testable import BandTrace

@Suite struct ATTExtractorTests {
    typealias F = TraceFixtures

    struct Seen: Equatable {
        var direction: TraceDirection
        var connection: UInt16
        var pdu: [UInt8]
        var peer: LEAddress?
    }

    func extract(_ file: [UInt8]) throws -> (att: [Seen], connections: [ConnectionTraceEvent], anomalies: [TraceAnomaly]) {
        try file.withUnsafeBytes { raw in
            var reader = try BtsnoopMemoryReader(bytes: raw)
            let extractor = ATTExtractor()
            var att: [Seen] = [], connections: [ConnectionTraceEvent] = [], anomalies: [TraceAnomaly] = []
            while let record = try reader.next() {
                let output = extractor.process(record, datalink: reader.datalink)
                switch output.event {
                case .att(let e)?: att.append(Seen(direction: e.direction, connection: e.connection, pdu: Array(e.pdu), peer: e.peer))
                case .connection(let c)?: connections.append(c)
                case nil: break
                }
                if let a = output.anomaly { anomalies.append(a) }
            }
            return (att, connections, anomalies)
        }
    }

    static let peer = LEAddress(BluetoothAddress(0xC80F_1012_3456), type: .public)

    @Test func conversationOfConnectReadNotifyDisconnect() throws {
        let read = bytes("0a 29 00")
        let notification = bytes("1b 29 00 06 52")
        let frame = F.l2cap(notification)
        let file = F.fileHeader()
            + F.record([0x04] + bytes("3e 02 02 01"), flags: 3)                       // advertising report: skipped
            + F.record([0x04] + F.leConnectionComplete(handle: 0x40), flags: 3)
            + F.record([0x02] + F.acl(handle: 0x40, pb: 0, F.l2cap(read)), flags: 0)
            + F.record([0x02] + F.acl(handle: 0x40, pb: 2, Array(frame.prefix(6))), flags: 1)
            + F.record([0x02] + F.acl(handle: 0x40, pb: 1, Array(frame.dropFirst(6))), flags: 1)
            + F.record([0x02] + F.acl(handle: 0x40, pb: 2, F.l2cap(cid: 6, [0x0b, 1])), flags: 1)  // SMP: not ATT
            + F.record([0x04] + F.disconnectionComplete(handle: 0x40), flags: 3)
            + F.record([0x02] + F.acl(handle: 0x40, pb: 0, F.l2cap(read)), flags: 0)
        let (att, connections, anomalies) = try extract(file)
        #expect(att == [Seen(direction: .tx, connection: 0x40, pdu: read, peer: Self.peer),
                        Seen(direction: .rx, connection: 0x40, pdu: notification, peer: Self.peer),
                        Seen(direction: .tx, connection: 0x40, pdu: read, peer: nil)])
        #expect(connections.map(\.change) == [.connected(Self.peer), .disconnected(reason: 0x13)])
        #expect(anomalies == [])
    }

    @Test func malformedPacketsAreReportedWithRecordAndFileOffsetThenSkipped() throws {
        let file = F.fileHeader()
            + F.record([0x02] + bytes("40 20 09 00 05 00"), flags: 1)      // ACL says 9 bytes, has 2
            + F.record([0x04] + bytes("3e 13 01 00 40"), flags: 3)         // connection complete cut short
            + F.record([], flags: 1)                                        // no H4 byte
            + F.record([0x02] + F.acl(handle: 0x40, pb: 1, [1, 2]), flags: 1)
            + F.record([0x02] + F.acl(handle: 0x40, pb: 2, F.l2cap(bytes("1b 29 00 06 52"))), flags: 1)
        let (att, _, anomalies) = try extract(file)
        #expect(att.count == 1)
        let second = 16 + 24 + 7
        let third = second + 24 + 6
        #expect(anomalies.map(\.recordIndex) == [0, 1, 2, 3])
        #expect(anomalies[0].kind == .malformedPacket(ParseError(.truncated, at: 16 + 24 + 1 + 6, field: "ACL data")))
        #expect(anomalies[1].kind == .malformedPacket(ParseError(.truncated, at: second + 24 + 1 + 2, field: "event parameters")))
        #expect(anomalies[2].kind == .malformedPacket(ParseError(.truncated, at: third + 24, field: "H4 packet type")))
        #expect(anomalies[3].kind == .reassembly(.continuationWithoutStart(bytes: 2), connection: 0x40, direction: .rx))
        #expect(anomalies[3].description.contains("record 3"))
    }

    @Test func monitorDeleteIndexForgetsTheAdaptersOpenFrames() throws {
        let frame = F.l2cap(bytes("1b 29 00 06 52"))
        let file = F.fileHeader(datalink: 2001)
            + F.record(F.acl(handle: 0x40, pb: 2, Array(frame.prefix(5))), flags: 1 << 16 | 5)
            + F.record([], flags: 1 << 16 | 1)
            + F.record(F.acl(handle: 0x40, pb: 1, Array(frame.dropFirst(5))), flags: 1 << 16 | 5)
        let (att, _, anomalies) = try extract(file)
        #expect(att.isEmpty)
        #expect(anomalies.first?.kind == .reassembly(.continuationWithoutStart(bytes: 4), connection: 0x40, direction: .rx))
    }

    @Test(arguments: [("miband2_ec521_btsnoop_hci.log", 136), ("dsd6_btsnoop_hci_3.log", 261)])
    func realCapturesYieldAsManyATTPDUsAsTsharkFinds(name: String, expected: Int) throws {
        guard let path = F.capture(name) else {
            print("skipping: ../shared/captures/\(name) is not beside the repository")
            return
        }
        let reader = try BtsnoopFileReader(path: path)
        let extractor = ATTExtractor()
        var count = 0, anomalies = 0, connections = 0
        while let record = try reader.next() {
            let output = extractor.process(record, datalink: reader.datalink)
            if case .att? = output.event { count += 1 }
            if case .connection? = output.event { connections += 1 }
            if output.anomaly != nil { anomalies += 1 }
        }
        #expect(count == expected)
        #expect(anomalies == 0)
        #expect(connections > 0)
    }
}
