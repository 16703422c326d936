import BandHCI
import BandKitSystem
import BandTestSupport
import BandWire
import Foundation
import Testing
@testable import BandTrace

@Suite struct BtsnoopWriterTests {
    typealias F = TraceFixtures

    struct Packet: Equatable {
        var type: HCIPacketType
        var direction: TraceDirection
        var adapter: UInt16
        var time: Int64
        var payload: [UInt8]
    }

    static let session: [Packet] = [
        Packet(type: .command, direction: .tx, adapter: 0, time: 1_700_000_000_000_000, payload: bytes("03 0c 00")),
        Packet(type: .event, direction: .rx, adapter: 0, time: 1_700_000_000_000_400, payload: bytes("0e 04 01 03 0c 00")),
        Packet(type: .acl, direction: .tx, adapter: 0, time: 1_700_000_000_001_000, payload: bytes("40 00 07 00 03 00 04 00 0a 29 00")),
        Packet(type: .acl, direction: .rx, adapter: 0, time: 1_700_000_000_001_700, payload: bytes("40 20 06 00 02 00 04 00 0b 52")),
    ]

    func roundTrip(_ packets: [Packet], datalink: BtsnoopDatalink) throws -> (packets: [Packet], file: [UInt8]) {
        let path = F.temporaryPath("roundtrip.log")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try BtsnoopWriter(path: path, datalink: datalink, bufferSize: 64)
        for p in packets {
            try p.payload.withUnsafeBytes { raw in
                try writer.writePacket(p.type, direction: p.direction, adapter: p.adapter, unixMicroseconds: p.time, payload: raw)
            }
        }
        try writer.close()
        let reader = try BtsnoopFileReader(path: path)
        #expect(reader.datalink == datalink)
        var out: [Packet] = []
        while let record = try reader.next() {
            guard let packet = try TraceHCIPacket.unwrap(record, datalink: datalink) else { continue }
            out.append(Packet(type: packet.type, direction: packet.direction, adapter: packet.adapter,
                              time: record.unixMicroseconds, payload: Array(packet.payload)))
        }
        return (out, Array(try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    @Test func h4FileRoundTripsAndUsesAndroidFlagsAndTypeBytes() throws {
        let (packets, file) = try roundTrip(Self.session, datalink: .h4)
        #expect(packets == Self.session)
        #expect(Array(file.prefix(16)) == F.fileHeader(datalink: 1002))
        // Record 0: command → flags 2, data starts with H4 type 0x01.
        #expect(Array(file[16..<40]) == F.record([], flags: 2, unixMicroseconds: 1_700_000_000_000_000, original: 4, included: 4))
        #expect(file[40] == 0x01)
        // Flags of the four records: command 2, event 3, ACL sent 0, ACL received 1.
        var offset = 16
        var flags: [UInt8] = []
        for p in Self.session {
            flags.append(file[offset + 11])
            offset += 24 + 1 + p.payload.count
        }
        #expect(flags == [2, 3, 0, 1])
    }

    @Test func monitorFileRoundTripsAdapterIndexAndOpcodes() throws {
        var session = Self.session
        session[3].adapter = 1
        session.append(Packet(type: .acl, direction: .rx, adapter: 2, time: 1_700_000_000_002_000, payload: bytes("41 20 05 00 01 00 04 00 1e")))
        let (packets, file) = try roundTrip(session, datalink: .linuxMonitor)
        #expect(packets == session)
        // Record 3: flags = 1 << 16 | ACL_RX_PKT (5), no H4 byte.
        let record3 = 16 + (24 + 3) + (24 + 6) + (24 + 11)
        #expect(Array(file[(record3 + 8)..<(record3 + 12)]) == [0, 1, 0, 5])
        #expect(file[record3 + 24] == 0x40)
    }

    @Test func h1FileRoundTripsWithTheTypeInTheFlags() throws {
        let (packets, _) = try roundTrip(Self.session, datalink: .h1)
        #expect(packets == Self.session)
    }

    @Test func recordsLargerThanTheWriteBufferAreWrittenWhole() throws {
        let big = Packet(type: .acl, direction: .rx, adapter: 0, time: 1, payload: [0x40, 0x20, 0xFC, 0x03] + [UInt8](repeating: 7, count: 1020))
        let (packets, _) = try roundTrip([Self.session[0], big, Self.session[1]], datalink: .h4)
        #expect(packets == [Self.session[0], big, Self.session[1]])
    }

    @Test func snapLengthRecordKeepsItsOriginalLength() throws {
        let path = F.temporaryPath("snap.log")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try BtsnoopWriter(path: path, datalink: .h4)
        try bytes("02 40 00 07 00").withUnsafeBytes { try writer.writeRecord(flags: 0, unixMicroseconds: 5, data: $0, originalLength: 12) }
        try writer.close()
        let reader = try BtsnoopFileReader(path: path)
        let record = try #require(try reader.next())
        #expect(record.header.originalLength == 12 && record.header.includedLength == 5 && record.isTruncated)
    }

    @Test func writeFailureNamesTheRecordAndOffset() throws {
        var calls = SystemCalls.live
        calls.open = { _, _, _ in 9 }
        calls.read = { _, _, _ in 0 }
        calls.write = { _, _, _ in errno = ENOSPC; return -1 }
        calls.close = { _ in 0 }
        let writer = try BtsnoopWriter(fileDescriptor: 9, ownsDescriptor: true, datalink: .h4, bufferSize: 64, calls: calls)
        #expect(throws: BtsnoopError(.system(call: "write", errno: ENOSPC), recordIndex: 0, offset: 16)) {
            try bytes(String(repeating: "00 ", count: 60)).withUnsafeBytes {
                try writer.writePacket(.acl, direction: .tx, unixMicroseconds: 0, payload: $0)
            }
        }
    }
}
