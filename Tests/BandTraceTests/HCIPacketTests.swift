import BandHCI
import BandTestSupport
import BandWire
import Testing
@testable import BandTrace

@Suite struct HCIPacketTests {
    func roundTrip<T: WireCodable & Equatable>(_ vector: [UInt8], as type: T.Type) throws -> T {
        let value = try parse(vector) { (c) throws(ParseError) in try T(parsing: &c) }
        #expect(value.encodedBytes() == vector)
        #expect(prefixesThatDidNotTruncate(vector) { (c) throws(ParseError) in try T(parsing: &c) } == [])
        return value
    }

    @Test func l2capBasicHeader() throws {
        let header = try roundTrip(bytes("07 00 04 00"), as: L2CAPBasicHeader.self)
        #expect(header.payloadLength == 7 && header.channel == .att)
    }

    // MARK: Datalink framing

    func unwrap(_ data: [UInt8], flags: UInt32, datalink: BtsnoopDatalink) throws -> (TraceHCIPacket?, [UInt8]) {
        let file = TraceFixtures.fileHeader(datalink: datalink.rawValue) + TraceFixtures.record(data, flags: flags)
        return try file.withUnsafeBytes { raw in
            var reader = try BtsnoopMemoryReader(bytes: raw)
            let record = try #require(try reader.next())
            let packet = try TraceHCIPacket.unwrap(record, datalink: datalink)
            return (packet, packet.map { Array($0.payload) } ?? [])
        }
    }

    @Test func h4RecordsTakeTheTypeFromTheFirstByteAndDirectionFromFlagBit0() throws {
        let (packet, payload) = try unwrap(bytes("02 40 20 01 00 ff"), flags: 1, datalink: .h4)
        #expect(packet?.type == .acl && packet?.direction == .rx && packet?.adapter == 0)
        #expect(payload == bytes("40 20 01 00 ff"))
        #expect(packet?.payloadOffset == 16 + 24 + 1)
    }

    @Test func emptyH4RecordIsATruncatedTypeByteAtItsFileOffset() {
        #expect(throws: ParseError(.truncated, at: 40, field: "H4 packet type")) { _ = try unwrap([], flags: 0, datalink: .h4) }
    }

    @Test func h1RecordsTakeTheTypeFromFlagBit1() throws {
        #expect(try unwrap([1], flags: 2, datalink: .h1).0?.type == .command)
        #expect(try unwrap([1], flags: 3, datalink: .h1).0?.type == .event)
        #expect(try unwrap([1], flags: 0, datalink: .h1).0?.type == .acl)
        #expect(try unwrap([1], flags: 1, datalink: .h1).0?.direction == .rx)
    }

    @Test func monitorRecordsTakeAdapterAndOpcodeFromFlagsAndSkipBookkeeping() throws {
        let (acl, _) = try unwrap(bytes("40 20 00 00"), flags: 3 << 16 | 4, datalink: .linuxMonitor)
        #expect(acl?.type == .acl && acl?.direction == .tx && acl?.adapter == 3)
        #expect(try unwrap(bytes("3e 00"), flags: 3, datalink: .linuxMonitor).0?.type == .event)
        for opcode: UInt32 in [0, 1, 8, 9, 10, 11, 12, 13, 14, 17, 999] {
            #expect(try unwrap([0, 0], flags: opcode, datalink: .linuxMonitor).0 == nil, "opcode \(opcode)")
        }
    }
}
