import BandTestSupport
import BandWire
import Testing
@testable import BandTrace

/// Air captures (link types 256 and 272), hand-built byte by byte: there are no air captures in
/// the repository, so these vectors follow Core 5.4 Vol 6 Part B and the two pseudo-header
/// layouts (docs/protocol.md) rather than a recording.
@Suite struct LinkLayerFollowerTests {
    static let connectionAA: UInt32 = 0x5065_4A2B
    static let band = LEAddress(BluetoothAddress(0xD5_42_A7_10_B3_0C), type: .random)
    static let phone = LEAddress(BluetoothAddress(0x11_22_33_44_55_66), type: .public)

    static func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * UInt32($0))) } }

    /// An LE packet: access address, header, length, payload, a dummy CRC.
    static func lePacket(aa: UInt32, header: UInt8, _ payload: [UInt8]) -> [UInt8] {
        le32(aa) + [header, UInt8(payload.count)] + payload + [0xC0, 0xFF, 0xEE]
    }

    static var connectInd: [UInt8] {
        let payload = phone.address.wireOrder + band.address.wireOrder + le32(connectionAA)
            + [0x17, 0x3D, 0x5A] + [2] + [0x0A, 0x00] + [0x18, 0x00] + [0, 0] + [0xC8, 0x00]
            + [0xFF, 0xFF, 0xFF, 0xFF, 0x1F] + [0xA5]
        // Type 5, TxAdd 0 (InitA public), RxAdd 1 (AdvA random).
        return lePacket(aa: LEAirPacket.advertisingAccessAddress, header: 0x85, payload)
    }

    /// A data PDU header byte.
    static func data(llid: UInt8, sn: UInt8, nesn: UInt8) -> UInt8 { llid | nesn << 2 | sn << 3 }

    /// nRF Sniffer (272, protocol version 2) around an LE packet.
    static func nordic(_ packet: [UInt8], centralToPeripheral: Bool, crcOK: Bool = true, encrypted: Bool = false) -> [UInt8] {
        let flags: UInt8 = (crcOK ? 1 : 0) | (centralToPeripheral ? 2 : 0) | (encrypted ? 4 : 0)
        let header: [UInt8] = [10, flags, 37, 60, 0x01, 0x00] + le32(1234)
        let length = UInt16(header.count + packet.count)
        return [0, UInt8(length & 0xFF), UInt8(length >> 8), 2, 0x07, 0x00, 0x06] + header + packet
    }

    /// LINKTYPE_BLUETOOTH_LE_LL_WITH_PHDR (256) around an LE packet; `pduType` 0 leaves the
    /// direction unsaid.
    static func withPhdr(_ packet: [UInt8], pduType: UInt16 = 0, crc: Bool? = true) -> [UInt8] {
        var flags: UInt16 = 0x0001 | pduType << 7
        if let crc { flags |= 0x0400 | (crc ? 0x0800 : 0) }
        return [12, 0xC4, 0x9C, 0] + le32(connectionAA) + [UInt8(flags & 0xFF), UInt8(flags >> 8)] + packet
    }

    enum Seen: Equatable {
        case att(dir: TraceDirection, conn: UInt16, pdu: [UInt8], seenFromCentral: Bool, t: Int64)
        /// A PDU the sniffer got with a failed CRC and the peer acknowledged.
        case crcFailedATT(dir: TraceDirection, pdu: [UInt8], t: Int64, record: Int)
        case connected(UInt16, LEAddress)
        case disconnected(UInt16, UInt8)
        case anomaly(Int)
    }

    /// Decodes pcapng packets of `linkType` (timestamps from `times`, default 1 ms apart).
    static func decode(linkType: UInt16, _ packets: [[UInt8]], times: [UInt64]? = nil)
        -> (seen: [Seen], follower: LLConnectionFollower.Statistics?) {
        let f = PcapngFixtures(bigEndian: false)
        var file = f.sectionHeader() + f.interface(linkType: linkType)
        for (i, packet) in packets.enumerated() { file += f.enhancedPacket(timestamp: times?[i] ?? UInt64(i) * 1000, packet) }
        return file.withUnsafeBytes { raw in
            let decoder = TraceDecoder(source: try! PcapngMemoryReader(bytes: raw))
            var seen: [Seen] = []
            while let event = try! decoder.next() {
                switch event {
                case .att(let e) where e.trace.crcFailed:
                    seen.append(.crcFailedATT(dir: e.trace.direction, pdu: Array(e.trace.pdu), t: e.trace.unixMicroseconds,
                                              record: e.trace.recordIndex))
                case .att(let e):
                    seen.append(.att(dir: e.trace.direction, conn: e.trace.connection, pdu: Array(e.trace.pdu),
                                     seenFromCentral: e.trace.viewpoint == .central, t: e.trace.unixMicroseconds))
                case .connection(let c):
                    switch c.change {
                    case .connected(let peer): seen.append(.connected(c.connection, peer))
                    case .disconnected(let reason): seen.append(.disconnected(c.connection, reason))
                    }
                case .anomaly(let a): seen.append(.anomaly(a.recordIndex))
                }
            }
            return (seen, decoder.source.follower?.statistics)
        }
    }

    static let readRequest = TraceFixtures.l2cap([0x0A, 0x12, 0x00])
    static let readResponse = TraceFixtures.l2cap([0x0B, 0x06, 0x48])
    static let notification = TraceFixtures.l2cap([0x1B, 0x12, 0x00, 0x06, 0x4B])

    @Test func nordicSnifferConnectionIsFollowedFromItsConnectInd() {
        let aa = Self.connectionAA
        let (seen, stats) = Self.decode(linkType: 272, [
            Self.nordic(Self.connectInd, centralToPeripheral: true),
            Self.nordic(Self.lePacket(aa: aa, header: Self.data(llid: 2, sn: 0, nesn: 0), Self.readRequest), centralToPeripheral: true),
            Self.nordic(Self.lePacket(aa: aa, header: Self.data(llid: 2, sn: 0, nesn: 1), Self.readResponse), centralToPeripheral: false),
            Self.nordic(Self.lePacket(aa: aa, header: Self.data(llid: 1, sn: 1, nesn: 1), []), centralToPeripheral: true),  // empty
            Self.nordic(Self.lePacket(aa: aa, header: Self.data(llid: 2, sn: 1, nesn: 0), Self.notification), centralToPeripheral: false),
            Self.nordic(Self.lePacket(aa: aa, header: Self.data(llid: 3, sn: 0, nesn: 0), [0x02, 0x13]), centralToPeripheral: true),
        ])
        #expect(seen == [
            .connected(1, Self.band),
            .att(dir: .tx, conn: 1, pdu: [0x0A, 0x12, 0x00], seenFromCentral: true, t: 1000),
            .att(dir: .rx, conn: 1, pdu: [0x0B, 0x06, 0x48], seenFromCentral: true, t: 2000),
            .att(dir: .rx, conn: 1, pdu: [0x1B, 0x12, 0x00, 0x06, 0x4B], seenFromCentral: true, t: 4000),
            .disconnected(1, 0x13),
        ])
        #expect(stats?.connections == 1 && stats?.emptyPDUs == 1 && stats?.dataPDUs == 3 && stats?.controlPDUs == 1)
    }

    @Test func retransmissionsAndCRCFailuresAreDropped() {
        let aa = Self.connectionAA
        let (seen, stats) = Self.decode(linkType: 272, [
            Self.nordic(Self.connectInd, centralToPeripheral: true),
            Self.nordic(Self.lePacket(aa: aa, header: Self.data(llid: 1, sn: 0, nesn: 0), []), centralToPeripheral: true),
            Self.nordic(Self.lePacket(aa: aa, header: Self.data(llid: 2, sn: 0, nesn: 1), Self.notification), centralToPeripheral: false),
            // The central's NESN is still 0: it did not get the notification; the peripheral sends it again.
            Self.nordic(Self.lePacket(aa: aa, header: Self.data(llid: 1, sn: 1, nesn: 0), []), centralToPeripheral: true),
            Self.nordic(Self.lePacket(aa: aa, header: Self.data(llid: 2, sn: 0, nesn: 0), Self.notification), centralToPeripheral: false),
            // Now acknowledged (NESN 1); the next notification (SN 1) is new.
            Self.nordic(Self.lePacket(aa: aa, header: Self.data(llid: 1, sn: 0, nesn: 1), []), centralToPeripheral: true),
            // A copy the sniffer received damaged, then the same PDU intact.
            Self.nordic(Self.lePacket(aa: aa, header: Self.data(llid: 2, sn: 1, nesn: 1), [0xFF] + Self.notification.dropFirst()),
                        centralToPeripheral: false, crcOK: false),
            Self.nordic(Self.lePacket(aa: aa, header: Self.data(llid: 2, sn: 1, nesn: 1), Self.notification), centralToPeripheral: false),
            // A PDU of another connection.
            Self.nordic(Self.lePacket(aa: 0x1234_5678, header: Self.data(llid: 2, sn: 0, nesn: 0), Self.notification), centralToPeripheral: false),
        ])
        let notifications = seen.filter { if case .att = $0 { return true } else { return false } }
        #expect(notifications.count == 2)
        #expect(stats?.retransmissions == 1 && stats?.crcFailures == 1 && stats?.otherAccessAddress == 1)
    }

    @Test func l2capFramesAreReassembledFromLinkLayerFragments() {
        let aa = Self.connectionAA
        let frame = TraceFixtures.l2cap([0x1B, 0x12, 0x00] + Array(0..<40))  // 47 bytes: more than one 27-byte PDU
        let (seen, _) = Self.decode(linkType: 272, [
            Self.nordic(Self.connectInd, centralToPeripheral: true),
            Self.nordic(Self.lePacket(aa: aa, header: Self.data(llid: 2, sn: 0, nesn: 0), Array(frame.prefix(27))), centralToPeripheral: false),
            Self.nordic(Self.lePacket(aa: aa, header: Self.data(llid: 1, sn: 1, nesn: 0), Array(frame.dropFirst(27))), centralToPeripheral: false),
        ])
        #expect(seen.last == .att(dir: .rx, conn: 1, pdu: Array(frame.dropFirst(4)), seenFromCentral: true, t: 2000))
    }

    @Test func encryptedLinksAreCountedNotDecoded() {
        let aa = Self.connectionAA
        let (seen, stats) = Self.decode(linkType: 272, [
            Self.nordic(Self.connectInd, centralToPeripheral: true),
            Self.nordic(Self.lePacket(aa: aa, header: Self.data(llid: 3, sn: 0, nesn: 0), [0x05]), centralToPeripheral: false),  // LL_START_ENC_REQ
            Self.nordic(Self.lePacket(aa: aa, header: Self.data(llid: 2, sn: 0, nesn: 1), Self.readRequest + [1, 2, 3, 4]), centralToPeripheral: true),
            Self.nordic(Self.lePacket(aa: aa, header: Self.data(llid: 2, sn: 1, nesn: 1), Self.notification + [1, 2, 3, 4]), centralToPeripheral: false),
            // A new connection starts in the clear; the sniffer's own flag marks an encrypted PDU too.
            Self.nordic(Self.connectInd, centralToPeripheral: true),
            Self.nordic(Self.lePacket(aa: aa, header: Self.data(llid: 2, sn: 0, nesn: 0), Self.notification), centralToPeripheral: false, encrypted: true),
            Self.nordic(Self.lePacket(aa: aa, header: Self.data(llid: 2, sn: 1, nesn: 0), Self.notification), centralToPeripheral: false),
        ])
        #expect(seen == [.connected(1, Self.band), .connected(2, Self.band),
                         .att(dir: .rx, conn: 2, pdu: [0x1B, 0x12, 0x00, 0x06, 0x4B], seenFromCentral: true, t: 6000)])
        #expect(stats?.encryptedPDUs == 3)
    }

    @Test func linkTypeWithPhdrTakesItsDirectionFieldOrInfersItFromTiming() {
        let aa = Self.connectionAA
        // PDU type field 2/3 says the direction; 0 leaves it to timing: first in an event is the central.
        let (said, _) = Self.decode(linkType: 256, [
            Self.withPhdr(Self.connectInd),
            Self.withPhdr(Self.lePacket(aa: aa, header: Self.data(llid: 2, sn: 0, nesn: 0), Self.notification), pduType: 3),
        ])
        #expect(said.last == .att(dir: .rx, conn: 1, pdu: Array(Self.notification.dropFirst(4)), seenFromCentral: true, t: 1000))
        let (inferred, _) = Self.decode(linkType: 256, [
            Self.withPhdr(Self.connectInd),
            Self.withPhdr(Self.lePacket(aa: aa, header: Self.data(llid: 2, sn: 0, nesn: 0), Self.readRequest)),            // event start: central
            Self.withPhdr(Self.lePacket(aa: aa, header: Self.data(llid: 2, sn: 0, nesn: 1), Self.readResponse)),           // 300 µs later: peripheral
            Self.withPhdr(Self.lePacket(aa: aa, header: Self.data(llid: 2, sn: 1, nesn: 1), Self.readRequest)),            // next event: central
            Self.withPhdr(Self.lePacket(aa: aa, header: Self.data(llid: 2, sn: 1, nesn: 0), Self.notification), crc: false),  // dropped
        ], times: [0, 50_000, 50_300, 80_000, 80_300])
        let directions: [TraceDirection] = inferred.compactMap { seen -> TraceDirection? in
            if case .att(let dir, _, _, _, _) = seen { return dir }
            return nil
        }
        #expect(directions == [.tx, .rx, .tx])
    }

    @Test func brokenAirPacketsAreAnomaliesAndDecodingGoesOn() {
        let aa = Self.connectionAA
        var shortConnect = Self.connectInd
        shortConnect[5] = 20  // CONNECT_IND claiming 20 bytes
        let (seen, _) = Self.decode(linkType: 272, [
            [0, 1, 0],                                                        // shorter than the sniffer header
            [0, 20, 0, 1, 0, 0, 6, 10] + [UInt8](repeating: 0, count: 12),    // protocol version 1
            Self.nordic(Array(shortConnect.prefix(6 + 20 + 3)), centralToPeripheral: true),
            Self.nordic(Array(Self.connectInd.prefix(8)), centralToPeripheral: true),  // cut inside the PDU
            [0, 10, 0, 2, 0, 0, 0x0D, 0],                                    // a ping, not a packet: skipped
            Self.nordic(Self.connectInd, centralToPeripheral: true),
            Self.nordic(Self.lePacket(aa: aa, header: Self.data(llid: 2, sn: 0, nesn: 0), Self.readRequest), centralToPeripheral: true),
        ])
        #expect(seen == [.anomaly(0), .anomaly(1), .anomaly(2), .anomaly(3), .connected(1, Self.band),
                         .att(dir: .tx, conn: 1, pdu: [0x0A, 0x12, 0x00], seenFromCentral: true, t: 6000)])
        let (phdr, _) = Self.decode(linkType: 256, [[1, 2, 3]])
        #expect(phdr == [.anomaly(0)])
    }

    /// A PDU the sniffer heard damaged but the peer acknowledged (its NESN moved on) was
    /// received by the peer and will not come again: kept, marked, in its own place (its time
    /// and record, before the packet that acknowledged it), as tshark decodes it.
    @Test func aCRCFailedPDUThePeerAcknowledgedIsKeptAndMarked() {
        let aa = Self.connectionAA
        for linkType: UInt16 in [272, 256] {
            func packet(_ header: UInt8, _ payload: [UInt8], central: Bool, crcOK: Bool = true) -> [UInt8] {
                let le = Self.lePacket(aa: aa, header: header, payload)
                return linkType == 272 ? Self.nordic(le, centralToPeripheral: central, crcOK: crcOK)
                                       : Self.withPhdr(le, pduType: central ? 2 : 3, crc: crcOK)
            }
            let (seen, stats) = Self.decode(linkType: linkType, [
                linkType == 272 ? Self.nordic(Self.connectInd, centralToPeripheral: true) : Self.withPhdr(Self.connectInd),
                packet(Self.data(llid: 1, sn: 0, nesn: 0), [], central: true),
                packet(Self.data(llid: 2, sn: 0, nesn: 1), Self.notification, central: false, crcOK: false),
                // The central's NESN moves to 1: it received the notification.
                packet(Self.data(llid: 1, sn: 1, nesn: 1), [], central: true),
                packet(Self.data(llid: 2, sn: 1, nesn: 0), Self.readResponse, central: false),
            ])
            #expect(seen == [
                .connected(1, Self.band),
                .crcFailedATT(dir: .rx, pdu: [0x1B, 0x12, 0x00, 0x06, 0x4B], t: 2000, record: 2),
                .att(dir: .rx, conn: 1, pdu: [0x0B, 0x06, 0x48], seenFromCentral: true, t: 4000),
            ], "link type \(linkType)")
            #expect(stats?.crcFailedKept == 1 && stats?.crcFailures == 0, "link type \(linkType): \(String(describing: stats))")
        }
    }

    /// The peer's NESN still asks for the PDU (it did not get it either), or nothing answers
    /// before the capture ends: the damaged copy is dropped, the retransmission carries it.
    @Test func aCRCFailedPDUThePeerDidNotAcknowledgeIsDropped() {
        let aa = Self.connectionAA
        let (seen, stats) = Self.decode(linkType: 272, [
            Self.nordic(Self.connectInd, centralToPeripheral: true),
            Self.nordic(Self.lePacket(aa: aa, header: Self.data(llid: 1, sn: 0, nesn: 0), []), centralToPeripheral: true),
            Self.nordic(Self.lePacket(aa: aa, header: Self.data(llid: 2, sn: 0, nesn: 1), [0xFF] + Self.notification.dropFirst()),
                        centralToPeripheral: false, crcOK: false),
            // NESN 0: the central asks for SN 0 again.
            Self.nordic(Self.lePacket(aa: aa, header: Self.data(llid: 1, sn: 1, nesn: 0), []), centralToPeripheral: true),
            Self.nordic(Self.lePacket(aa: aa, header: Self.data(llid: 2, sn: 0, nesn: 0), Self.notification), centralToPeripheral: false),
            // The last packet: damaged, and no verdict comes.
            Self.nordic(Self.lePacket(aa: aa, header: Self.data(llid: 2, sn: 0, nesn: 1), Self.readRequest), centralToPeripheral: true, crcOK: false),
        ])
        #expect(seen == [
            .connected(1, Self.band),
            .att(dir: .rx, conn: 1, pdu: [0x1B, 0x12, 0x00, 0x06, 0x4B], seenFromCentral: true, t: 4000),
        ])
        #expect(stats?.crcFailedKept == 0 && stats?.crcFailures == 2, "\(String(describing: stats))")
    }

    /// The sniffer missed the peer's acknowledgement, but the sender went on to a new SN, which
    /// it does only once acknowledged: the damaged-CRC PDU was received and is kept.
    @Test func aCRCFailedPDUWhoseSenderMovedOnIsKept() {
        let aa = Self.connectionAA
        let (seen, stats) = Self.decode(linkType: 272, [
            Self.nordic(Self.connectInd, centralToPeripheral: true),
            Self.nordic(Self.lePacket(aa: aa, header: Self.data(llid: 2, sn: 0, nesn: 0), Self.readRequest), centralToPeripheral: true, crcOK: false),
            Self.nordic(Self.lePacket(aa: aa, header: Self.data(llid: 2, sn: 1, nesn: 1), Self.readRequest), centralToPeripheral: true),
        ])
        #expect(seen == [
            .connected(1, Self.band),
            .crcFailedATT(dir: .tx, pdu: [0x0A, 0x12, 0x00], t: 1000, record: 1),
            .att(dir: .tx, conn: 1, pdu: [0x0A, 0x12, 0x00], seenFromCentral: true, t: 2000),
        ])
        #expect(stats?.crcFailedKept == 1 && stats?.crcFailures == 0, "\(String(describing: stats))")
    }
}
