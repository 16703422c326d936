import BandTestSupport
import BandWire
import Foundation
import Testing
@testable import BandTrace

/// The generated heart-rate session as the nRF Sniffer would have heard it over the air: every
/// HCI ACL fragment becomes an LL data PDU (the generator cuts at 27 bytes, the LE 4.0 PDU
/// size), LE Connection Complete a CONNECT_IND, Disconnection Complete an LL_TERMINATE_IND —
/// plus what the air adds: empty PDUs, retransmissions and CRC-failed copies. Decoded through
/// the link-layer follower it must give the ATT PDUs the HCI trace gives, with the phone (the
/// recording host, the central) as tx.
@Suite struct AirCaptureRoundTripTests {
    typealias L = LinkLayerFollowerTests

    /// The btsnoop H4 session as a link type 272 pcapng.
    static func airCapture(fromBtsnoop btsnoop: [UInt8]) -> [UInt8] {
        let f = PcapngFixtures(bigEndian: false)
        var out = f.sectionHeader() + f.interface(linkType: 272)
        var sequence: [UInt8] = [0, 0]   // next SN per side (0 central, 1 peripheral)
        var lastSent: [UInt8] = [1, 1]   // SN of each side's last PDU
        func emit(_ t: Int64, _ packet: [UInt8], central: Bool, crcOK: Bool = true) {
            out += f.enhancedPacket(timestamp: UInt64(t), L.nordic(packet, centralToPeripheral: central, crcOK: crcOK))
        }
        func data(_ t: Int64, llid: UInt8, _ payload: [UInt8], central: Bool) {
            let side = central ? 0 : 1
            let header = L.data(llid: llid, sn: sequence[side], nesn: lastSent[1 - side] ^ 1)
            emit(t, L.lePacket(aa: L.connectionAA, header: header, payload), central: central)
            lastSent[side] = sequence[side]
            sequence[side] ^= 1
        }
        btsnoop.withUnsafeBytes { raw in
            var reader = try! BtsnoopMemoryReader(bytes: raw)
            var count = 0
            while let record = try! reader.next() {
                guard let packet = try! TraceHCIPacket.unwrap(record, datalink: reader.datalink) else { continue }
                let payload = Array(packet.payload)
                let t = record.unixMicroseconds
                count += 1
                switch packet.type {
                case .event where payload.count >= 3 && payload[0] == 0x3E && payload[2] == 0x01:
                    sequence = [0, 0]
                    lastSent = [1, 1]
                    var connect = L.connectInd
                    let peer = Array(payload[8..<14])           // the peer (the band) is the advertiser
                    connect.replaceSubrange(6 + 6..<6 + 12, with: peer)
                    connect[4] = 0x05 | (payload[7] & 1 == 1 ? 0x80 : 0)
                    emit(t, connect, central: true)
                case .event where payload.first == 0x05:
                    data(t, llid: 3, [0x02, payload[5]], central: true)
                case .acl:
                    let central = packet.direction == .tx
                    let boundary = (payload[1] >> 4) & 0x3
                    let fragment = Array(payload.dropFirst(4))
                    if count % 5 == 0 {
                        // A copy the sniffer received damaged, before the real one.
                        var damaged = L.lePacket(aa: L.connectionAA, header: L.data(llid: 2, sn: sequence[central ? 0 : 1], nesn: 0), fragment)
                        damaged[6] ^= 0xFF
                        emit(t, damaged, central: central, crcOK: false)
                    }
                    data(t, llid: boundary == 0b01 ? 1 : 2, fragment, central: central)
                    if count % 7 == 0 {
                        // The peer missed it: the same PDU again, before the peer's next packet.
                        let side = central ? 0 : 1
                        emit(t + 1, L.lePacket(aa: L.connectionAA, header: L.data(llid: boundary == 0b01 ? 1 : 2, sn: lastSent[side],
                                                                                   nesn: lastSent[1 - side] ^ 1), fragment), central: central)
                    }
                    if count % 3 == 0 { data(t + 2, llid: 1, [], central: !central) }  // the peer's empty PDU
                default:
                    continue
                }
            }
        }
        return out
    }

    struct PDU: Equatable {
        var t: Int64, dir: TraceDirection, pdu: [UInt8], handle: UInt16?, uuid: BluetoothUUID?
    }

    static func pdus<Source: TraceRecordSource>(_ source: Source) -> [PDU] {
        let decoder = TraceDecoder(source: source)
        var out: [PDU] = []
        while let event = try! decoder.next() {
            if case .att(let e) = event {
                out.append(PDU(t: e.trace.unixMicroseconds, dir: e.trace.direction, pdu: Array(e.trace.pdu), handle: e.handle, uuid: e.type))
            }
        }
        return out
    }

    @Test func theGeneratedSessionOffTheAirDecodesToTheSameATTPDUs() throws {
        let btsnoop = try PcapngDecodeTests.generated(datalink: .h4)
        let air = Self.airCapture(fromBtsnoop: btsnoop)
        let expected = btsnoop.withUnsafeBytes { Self.pdus(try! BtsnoopMemoryReader(bytes: $0)) }
        let (seen, statistics) = air.withUnsafeBytes { raw -> ([PDU], LLConnectionFollower.Statistics?) in
            let reader = try! PcapngMemoryReader(bytes: raw)
            let decoder = TraceDecoder(source: reader)
            var out: [PDU] = []
            while let event = try! decoder.next() {
                if case .att(let e) = event {
                    #expect(e.trace.viewpoint == .central)
                    out.append(PDU(t: e.trace.unixMicroseconds, dir: e.trace.direction, pdu: Array(e.trace.pdu), handle: e.handle, uuid: e.type))
                }
            }
            return (out, decoder.source.follower?.statistics)
        }
        #expect(expected.count > 400)
        #expect(seen == expected)
        let stats = try #require(statistics)
        #expect(stats.connections == 1 && stats.retransmissions > 50 && stats.crcFailures > 50 && stats.emptyPDUs > 50)
    }
}
