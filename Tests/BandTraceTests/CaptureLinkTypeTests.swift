import BandTestSupport
import BandWire
import Testing
@testable import BandTrace

/// The three HCI link types, unwrapped into the same records btsnoop gives.
@Suite struct CaptureLinkTypeTests {
    typealias F = PcapngFixtures

    /// The records of a pcapng file with one interface of `linkType` holding `packets`.
    static func records(linkType: UInt16, _ packets: [[UInt8]]) -> [TraceRecord.Content] {
        let f = F(bigEndian: false)
        var file = f.sectionHeader() + f.interface(linkType: linkType)
        for (i, packet) in packets.enumerated() { file += f.enhancedPacket(timestamp: UInt64(i), packet) }
        return file.withUnsafeBytes { raw in
            var reader = try! PcapngMemoryReader(bytes: raw)
            var out: [TraceRecord.Content] = []
            while let record = try! reader.nextTraceRecord() { out.append(record.content) }
            return out
        }
    }

    /// (type, direction, adapter, payload, payload offset) of a packet record; nil otherwise.
    static func packet(_ content: TraceRecord.Content) -> (UInt8, TraceDirection, UInt16, [UInt8], Int)? {
        guard case .packet(let p) = content else { return nil }
        return (p.type.rawValue, p.direction, p.adapter, Array(p.payload), p.payloadOffset)
    }

    @Test func h4WithPseudoHeaderTakesTheDirectionFromItsBigEndianWord() {
        let records = Self.records(linkType: 201, [F.h4WithPseudoHeader(received: false, type: 1, [3, 0x0c, 0]),
                                                   F.h4WithPseudoHeader(received: true, type: 2, [0x40, 0x20, 0, 0]),
                                                   [0, 0, 0], [0, 0, 0, 1]])
        let first = Self.packet(records[0])!
        #expect(first.0 == 1 && first.1 == .tx && first.3 == [3, 0x0c, 0])
        #expect(first.4 == 28 + 20 + 28 + 5)  // SHB, IDB, EPB fields, pseudo-header + H4 byte
        #expect(Self.packet(records[1])!.1 == .rx)
        guard case .malformed(let short) = records[2], case .malformed(let noType) = records[3] else {
            Issue.record("short packets must be malformed"); return
        }
        #expect(short.kind == .truncated && noType.kind == .truncated)
    }

    @Test func plainH4InfersDirectionFromPacketTypeAndACLBoundaryFlag() {
        let records = Self.records(linkType: 187, [
            [1, 3, 0x0c, 0],                         // command: tx
            [4, 0x0e, 4, 1, 3, 0x0c, 0],             // event: rx
            [2] + TraceFixtures.acl(handle: 0x40, pb: 0b10, [1, 2]),  // controller → host first fragment: rx
            [2] + TraceFixtures.acl(handle: 0x40, pb: 0b01, [3]),     // continuation: as the last start on 0x40
            [2] + TraceFixtures.acl(handle: 0x40, pb: 0b00, [1, 2]),  // host → controller first fragment: tx
            [2] + TraceFixtures.acl(handle: 0x40, pb: 0b01, [3]),
            [2] + TraceFixtures.acl(handle: 0x41, pb: 0b01, [3]),     // continuation with no start seen: tx
            [],
        ])
        #expect(records.prefix(7).map { Self.packet($0)!.1 } == [.tx, .rx, .rx, .rx, .tx, .tx, .tx])
        guard case .malformed(let error) = records[7] else { Issue.record("empty packet must be malformed"); return }
        #expect(error.field.description == "H4 packet type")
    }

    @Test func linuxMonitorTakesAdapterAndOpcodeFromItsPseudoHeader() {
        let records = Self.records(linkType: 254, [
            F.monitor(adapter: 2, opcode: 5, TraceFixtures.acl(handle: 0x40, pb: 0b10, [1, 2])),  // ACL_RX
            F.monitor(adapter: 2, opcode: 2, [3, 0x0c, 0]),                                         // COMMAND
            F.monitor(adapter: 0, opcode: 0, [UInt8](repeating: 0, count: 16)),                      // NEW_INDEX
            F.monitor(adapter: 2, opcode: 1, []),                                                    // DEL_INDEX
            [0, 1],
        ])
        let acl = Self.packet(records[0])!
        #expect(acl.0 == 2 && acl.1 == .rx && acl.2 == 2 && acl.3 == TraceFixtures.acl(handle: 0x40, pb: 0b10, [1, 2]))
        #expect(Self.packet(records[1])!.0 == 1 && Self.packet(records[1])!.1 == .tx)
        guard case .ignored = records[2], case .adapterRemoved(let adapter) = records[3], case .malformed = records[4] else {
            Issue.record("monitor bookkeeping misread"); return
        }
        #expect(adapter == 2)
    }

    @Test func otherLinkTypesAreSkippedAndCounted() {
        let f = F(bigEndian: true)
        let file = f.sectionHeader() + f.interface(linkType: 251) + f.interface(linkType: 201)
            + f.enhancedPacket(interface: 0, timestamp: 0, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0xD6, 0xBE, 0x89, 0x8E])
            + f.enhancedPacket(interface: 1, timestamp: 0, F.h4WithPseudoHeader(received: false, type: 1, [3, 0x0c, 0]))
        file.withUnsafeBytes { raw in
            var reader = try! PcapngMemoryReader(bytes: raw)
            guard case .ignored = try! reader.nextTraceRecord()!.content else { Issue.record("LL packet not skipped"); return }
            #expect(Self.packet(try! reader.nextTraceRecord()!.content) != nil)
            #expect(reader.otherLinkTypePackets == 1)
        }
    }
}
