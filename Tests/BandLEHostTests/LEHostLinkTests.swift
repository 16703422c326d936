import BandATT
import BandHCI
import BandLEHost
import BandTestSupport
import BandWire
import Testing

/// A scripted central over HCI ACL bytes: connection, ATT through L2CAP with fragmentation
/// and reassembly at the controller's 27-byte ACL size, ACL flow control, LE signaling, and
/// advertising again after the link drops.
@Suite struct LEHostLinkTests {
    /// An ACL packet from the controller: handle 0x040, `boundary` 0b10 (start) or 0b01, `data` hex.
    func acl(_ data: String, start: Bool = true) -> String {
        let payload = bytes(data)
        return "02 40 " + (start ? "20" : "10") + " " + Hex.encode([UInt8(payload.count & 0xFF), UInt8(payload.count >> 8)]) + " " + data
    }

    /// The ACL packet the host sends: handle 0x040, boundary 0b00 first or 0b01 continuing.
    func hostACL(_ data: String, first: Bool = true) -> String {
        let payload = bytes(data)
        return compact("02 40 " + (first ? "00" : "10") + " " + Hex.encode([UInt8(payload.count & 0xFF), UInt8(payload.count >> 8)]) + " " + data)
    }

    @Test func connectionIsReportedAndMTUExchangeAnsweredOverACL() {
        var host = ScriptedHost()
        host.bringUp()
        host.controller(ScriptedHost.connectionComplete)
        guard case .connected(let handle, let peer, let interval, _, let timeout)? = host.takeEvents().first else { Issue.record("no connection"); return }
        #expect(handle == 0x40 && peer == LEAddress(BluetoothAddress(0x1122_3344_5566), type: .random) && interval == 0x18 && timeout == 0x48)
        host.controller(acl("03 00 04 00 02 f7 00"))
        #expect(host.takeSent() == [hostACL("03 00 04 00 03 f7 00")])
        guard case .mtuChanged(247)? = host.takeEvents().first else { Issue.record("no MTU change"); return }
        #expect(host.host.connection?.mtu == 247)
    }

    @Test func centralDiscoversAndReadsThroughTheUnchangedGATTServer() {
        var host = ScriptedHost()
        host.bringUp()
        host.connect()
        // Read By Group Type, primary services, 0x0001–0xFFFF.
        host.controller(acl("07 00 04 00 10 01 00 ff ff 00 28"))
        #expect(host.takeSent() == [hostACL("0e 00 04 00 11 06 01 00 03 00 00 18 04 00 06 00 0a 18")])
        // Read Request for the device name (handle 3).
        host.controller(acl("03 00 04 00 0a 03 00"))
        #expect(host.takeSent() == [hostACL("05 00 04 00 0b 42 61 6e 64")])
        // Write Request of a new name reaches the source, and the write is reported.
        host.controller(acl("08 00 04 00 12 03 00 57 72 69 73 74"))
        #expect(host.takeSent() == [hostACL("01 00 04 00 13")])
        #expect(host.source.name == Array("Wrist".utf8))
        guard case .gatt(.wrote(handle: 3, effect: 3))? = host.takeEvents().first else { Issue.record("no write event"); return }
    }

    @Test func longResponseIsFragmentedToTheControllersACLSize() {
        var host = ScriptedHost()
        host.bringUp()
        host.connect()
        host.controller(acl("03 00 04 00 02 f7 00"))
        _ = host.takeSent()
        host.controller("04 13 05 01 40 00 01 00")
        // Read the 60-byte manufacturer name: 4 + 61 bytes of L2CAP in fragments of 27, 27, 11.
        host.controller(acl("03 00 04 00 0a 06 00"))
        let value = HostTestAttributes.rows[5].1
        let pdu = bytes("3d 00 04 00 0b") + value
        #expect(host.takeSent() == [
            hostACL(Hex.encode(pdu[0..<27])), hostACL(Hex.encode(pdu[27..<54]), first: false), hostACL(Hex.encode(pdu[54...]), first: false),
        ])
        // All three controller buffers are in use now.
        #expect(host.host.aclCredits.available == 0)
    }

    @Test func fragmentsWaitForNumberOfCompletedPackets() {
        var host = ScriptedHost()
        host.bringUp(aclCount: 2)
        host.connect()
        host.controller(acl("03 00 04 00 02 f7 00"))
        _ = host.takeSent()
        host.controller("04 13 05 01 40 00 01 00")
        host.controller(acl("03 00 04 00 0a 06 00"))
        // Two credits: two fragments go, the third waits.
        #expect(host.takeSent().count == 2)
        // A completion for another handle gives nothing back.
        host.controller("04 13 05 01 41 00 02 00")
        #expect(host.takeSent() == [])
        host.controller("04 13 05 01 40 00 01 00")
        #expect(host.takeSent().count == 1)
        // The controller reports more completions than were outstanding: reported, not credited.
        host.controller("04 13 05 01 40 00 05 00")
        #expect(host.host.aclCredits.available == 2)
        guard case .dropped(.excessCompletedPackets(3))? = host.takeEvents().last else { Issue.record("excess not reported"); return }
    }

    @Test func fragmentedRequestIsReassembled() {
        var host = ScriptedHost()
        host.bringUp()
        host.connect()
        // Read By Group Type split after 5 bytes (inside the ATT PDU) and after 2 (inside the L2CAP header).
        for cut in [2, 5] {
            let whole = bytes("07 00 04 00 10 01 00 ff ff 00 28")
            host.controller(acl(Hex.encode(whole[0..<cut])))
            #expect(host.takeSent() == [])
            host.controller(acl(Hex.encode(whole[cut...]), start: false))
            #expect(host.takeSent().count == 1)
        }
    }

    @Test func badFragmentsAreDroppedWithTheirReason() {
        var host = ScriptedHost()
        host.bringUp()
        host.connect()
        // Continuation with nothing open.
        host.controller(acl("0a 03 00", start: false))
        // A start announcing 7 bytes, then a continuation with 9 more: longer than announced.
        host.controller(acl("07 00 04 00 10"))
        host.controller(acl("01 00 ff ff 00 28 00 00 00", start: false))
        // A start, then another start before the first completed: the first is dropped, the second answered.
        host.controller(acl("07 00 04 00 10"))
        host.controller(acl("03 00 04 00 0a 03 00"))
        // A PDU announcing more than the reassembly buffer holds (4 + 247): skipped to its end.
        host.controller(acl("00 04 04 00" + String(repeating: " 00", count: 23)))
        // 1,028 − 27 = 1,001 more bytes: 43 fragments of 23 and one of 12.
        for _ in 0..<43 { host.controller(acl(String(repeating: "00 ", count: 22) + "00", start: false)) }
        host.controller(acl(String(repeating: "00 ", count: 11) + "00", start: false))
        let drops = host.takeEvents().compactMap { event -> L2CAPDrop.Reason? in
            if case .dropped(.l2cap(let drop)) = event { return drop.reason }
            return nil
        }
        #expect(drops == [.continuationWithoutStart, .longerThanAnnounced, .interrupted, .tooLong])
        #expect(host.takeSent() == [hostACL("05 00 04 00 0b 42 61 6e 64")])
    }

    @Test func aclForAnotherHandleOrChannelIsReported() {
        var host = ScriptedHost()
        host.bringUp()
        host.connect()
        host.controller("02 41 20 07 00 03 00 04 00 0a 03 00")
        host.controller(acl("03 00 40 00 0a 03 00"))
        let events = host.takeEvents()
        guard events.count == 2, case .dropped(.unknownHandle(0x41)) = events[0], case .dropped(.unknownChannel(0x40)) = events[1] else {
            Issue.record("\(events)"); return
        }
        #expect(host.takeSent() == [])
    }

    @Test func disconnectionRestartsAdvertising() {
        var host = ScriptedHost()
        host.bringUp()
        host.connect()
        #expect(host.host.advertising == false)
        host.controller("04 05 04 00 40 00 13")
        #expect(host.host.connection == nil)
        #expect(host.takeSent() == [compact("01 0a 20 01 01")])
        host.controller("04 0e 04 01 0a 20 00")
        let events = host.takeEvents()
        guard events.count == 2, case .disconnected(0x40, let reason) = events[0], case .advertising = events[1] else { Issue.record("\(events)"); return }
        #expect(reason == .remoteUserTerminated && host.host.advertising)
        // The next central connects as the first did.
        host.controller(ScriptedHost.connectionComplete)
        #expect(host.host.connection?.handle == 0x40)
    }

    @Test func signalingRejectsWhatAPeripheralCannotDoAndAsksForParameters() {
        var host = ScriptedHost()
        host.bringUp(aclCount: 8)
        host.connect()
        // A Connection Parameter Update Request from the central: only a central may be asked.
        host.controller(acl("0c 00 05 00 12 07 08 00 18 00 28 00 00 00 48 00"))
        #expect(host.takeSent() == [hostACL("06 00 05 00 01 07 02 00 00 00")])
        // An unknown code: rejected, not understood.
        host.controller(acl("04 00 05 00 7f 08 00 00"))
        #expect(host.takeSent() == [hostACL("06 00 05 00 01 08 02 00 00 00")])
        // LE credit based channel: SPSM not supported.
        host.controller(acl("0e 00 05 00 14 09 0a 00 25 00 40 00 f7 00 f7 00 0a 00"))
        #expect(host.takeSent() == [hostACL("0e 00 05 00 15 09 0a 00 00 00 00 00 00 00 00 00 02 00")])
        // Our own request, answered accepted; an answer with another identifier is ignored.
        let request = ConnectionParameterUpdateRequest(intervalMin: 24, intervalMax: 40, latency: 0, supervisionTimeout: 400)
        #expect(host.host.requestConnectionParameters(request, io: &host.io))
        #expect(host.takeSent() == [hostACL("0c 00 05 00 12 01 08 00 18 00 28 00 00 00 90 01")])
        host.controller(acl("06 00 05 00 13 09 02 00 00 00"))
        #expect(host.takeEvents().isEmpty)
        host.controller(acl("06 00 05 00 13 01 02 00 00 00"))
        guard case .connectionParametersAnswered(accepted: true)? = host.takeEvents().first else { Issue.record("no answer"); return }
        // Out-of-range parameters are not sent.
        #expect(!host.host.requestConnectionParameters(ConnectionParameterUpdateRequest(intervalMin: 2, intervalMax: 40, latency: 0, supervisionTimeout: 400), io: &host.io))
    }

    @Test func signalingCutAtEveryOffsetIsRejectedOrReported() {
        let full = bytes("12 07 08 00 18 00 28 00 00 00 48 00")
        for keep in 0..<full.count {
            var host = ScriptedHost()
            host.bringUp()
            host.connect()
            let data = Array(full.prefix(keep))
            host.controller(acl(Hex.encode(bytes("00 00 05 00").enumerated().map { $0.offset == 0 ? UInt8(data.count) : $0.element } + data)))
            let sent = host.takeSent()
            let events = host.takeEvents()
            // With its header whole (identifier 7) a cut request gets Command Reject; shorter, a malformed report.
            if keep >= 4 {
                #expect(sent == [hostACL("06 00 05 00 01 07 02 00 00 00")], "cut at \(keep)")
            } else {
                #expect(sent == [], "cut at \(keep)")
                guard case .dropped(.malformedSignaling)? = events.first else { Issue.record("cut at \(keep): \(events)"); continue }
            }
        }
    }

    @Test func notificationsAreQueuedBoundedAndCutToTheMTU() {
        var host = ScriptedHost()
        host.bringUp(aclCount: 1)
        host.connect()
        let value = [UInt8](repeating: 0x11, count: 30)
        // ATT_MTU 23: 20 bytes of value fit.
        let queued = value.withUnsafeBytes { host.host.notify(handle: 3, value: $0, io: &host.io) }
        #expect(queued)
        #expect(host.takeSent() == [hostACL("17 00 04 00 1b 03 00" + String(repeating: " 11", count: 20))])
        // No credit now: four more fill the outbox, the fifth is refused.
        var results: [Bool] = []
        for _ in 0..<5 { results.append(value.withUnsafeBytes { host.host.notify(handle: 3, value: $0, io: &host.io) }) }
        #expect(results == [true, true, true, true, false])
        #expect(host.takeSent() == [])
    }
}
