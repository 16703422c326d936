import BandHCI
import BandLEHost
import BandTestSupport
import BandWire
import Testing

/// An owner that runs its own GATT server (the Linux band's services): ATT PDUs go to it
/// whole, its PDUs go out fragmented at the controller's ACL size under ACL credits, and it can
/// end the link with HCI Disconnect.
@Suite struct LEHostOwnATTTests {
    func acl(_ data: String) -> String {
        let payload = bytes(data)
        return "02 40 20 " + Hex.encode([UInt8(payload.count & 0xFF), UInt8(payload.count >> 8)]) + " " + data
    }

    func hostACL(_ data: String, first: Bool = true) -> String {
        let payload = bytes(data)
        return compact("02 40 " + (first ? "00" : "10") + " " + Hex.encode([UInt8(payload.count & 0xFF), UInt8(payload.count >> 8)]) + " " + data)
    }

    @Test func attPDUsGoToTheOwnerAndTheHostAnswersNothing() {
        var host = ScriptedHost()
        host.io.servesATT = true
        host.bringUp()
        host.connect()
        host.controller(acl("03 00 04 00 02 f7 00"))
        #expect(host.io.servedATT == [[0x02, 0xF7, 0x00]])
        #expect(host.takeSent().isEmpty)
        #expect(host.takeEvents().isEmpty)
    }

    @Test func ownersPDUsAreFragmentedUnderCredits() {
        var host = ScriptedHost()
        host.io.servesATT = true
        host.bringUp(aclCount: 1)
        host.connect()
        #expect(host.host.canSendATT)
        // A 40-byte notification: 44 bytes of L2CAP, fragments of 27 and 17, one credit.
        let value = (0..<37).map { UInt8($0) }
        let pdu: [UInt8] = [0x1B, 0x10, 0x00] + value
        let sent = host.sendATT(pdu)
        #expect(sent)
        let l2cap = Hex.encode([0x28, 0x00, 0x04, 0x00] + pdu)
        let wire = bytes(l2cap)
        #expect(host.takeSent() == [hostACL(Hex.encode(Array(wire[0..<27])))])
        host.controller("04 13 05 01 40 00 01 00")
        #expect(host.takeSent() == [hostACL(Hex.encode(Array(wire[27...])), first: false)])
    }

    @Test func sendingNeedsALinkRoomAndAFittingPDU() {
        var host = ScriptedHost()
        host.io.servesATT = true
        host.bringUp(aclCount: 1)
        let small: [UInt8] = [0x1B, 0x03, 0x00, 0x01]
        #expect(!host.host.canSendATT)
        let beforeLink = host.sendATT(small)
        #expect(!beforeLink)
        host.connect()
        let tooLong = host.sendATT([UInt8](repeating: 0x1B, count: 248))
        #expect(!tooLong)
        // One credit: the first goes out, four wait in the ring, the sixth is refused.
        let accepted = (0..<5).map { _ in host.sendATT(small) }
        #expect(accepted == [true, true, true, true, true])
        #expect(!host.host.canSendATT)
        let full = host.sendATT(small)
        #expect(!full)
    }

    @Test func disconnectSendsHCIDisconnectAndTheLinkEndsOnItsEvent() {
        var host = ScriptedHost()
        host.io.servesATT = true
        host.bringUp()
        let withoutLink = host.disconnect()
        #expect(!withoutLink)
        host.connect()
        let withLink = host.disconnect()
        #expect(withLink)
        #expect(host.takeSent() == [compact("01 06 04 03 40 00 13")])
        host.controller("04 0f 04 00 01 06 04")
        #expect(host.host.connection != nil)
        host.controller("04 05 04 00 40 00 16")
        #expect(host.host.connection == nil)
        guard case .disconnected(handle: 0x40, reason: let reason)? = host.takeEvents().first else { Issue.record("no disconnection"); return }
        #expect(reason.rawValue == 0x16)
    }

    @Test func disconnectParametersRoundTrip() throws {
        var writer = [UInt8](repeating: 0, count: 8)
        let length = writer.withUnsafeMutableBytes { raw -> Int in
            var output = ByteWriter(raw)
            HCIDisconnect(handle: 0x0040, reason: 0x13).encodeCommand(into: &output)
            return output.count
        }
        #expect(Hex.encode(Array(writer[0..<length])) == compact("01 06 04 03 40 00 13"))
        let parsed = try Array(writer[4..<length]).withUnsafeBytes { raw throws(ParseError) in
            var cursor = ByteCursor(raw)
            return try HCIDisconnect(parsing: &cursor)
        }
        #expect(parsed == HCIDisconnect(handle: 0x40, reason: 0x13))
        let error = [UInt8]([0x00, 0x0F, 0x13]).withUnsafeBytes { raw -> ParseError? in
            var cursor = ByteCursor(raw)
            do throws(ParseError) { _ = try HCIDisconnect(parsing: &cursor); return nil } catch { return error }
        }
        #expect(error?.offset == 0)
    }
}

extension ScriptedHost {
    /// The owner's PDU handed to the host (one access to the whole fixture, so the host and its
    /// IO are not borrowed through a closure's capture at once).
    mutating func sendATT(_ pdu: [UInt8]) -> Bool { pdu.withUnsafeBytes { host.sendATT($0, io: &io) } }

    mutating func disconnect() -> Bool { host.disconnect(io: &io) }
}
