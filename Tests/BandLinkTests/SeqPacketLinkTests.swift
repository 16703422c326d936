import BandLink
import BandTestSupport
import Glibc
import Testing

@Suite("SeqPacketLink")
struct SeqPacketLinkTests {
    @Test func scriptedConversationArrivesOnePDUPerDatagramInOrder() throws {
        let (client, server) = try SeqPacketLink.pair()
        try client.send(bytes("02 17 00"))                       // Exchange MTU Request, 23
        #expect(try server.receive(timeout: .seconds(1)) == bytes("02 17 00"))
        try server.send(bytes("03 f7 00"))                       // Exchange MTU Response, 247
        try server.send(bytes("1b 29 00 06 52"))                 // Handle Value Notification
        #expect(try client.receive(timeout: .seconds(1)) == bytes("03 f7 00"))
        #expect(try client.receive(timeout: .seconds(1)) == bytes("1b 29 00 06 52"))
        #expect(try client.receive(timeout: .zero) == nil)
    }

    @Test func oversizedDatagramIsAnErrorAndTheNextOneStillArrives() throws {
        let (a, b) = try SeqPacketLink.pair(mtu: 512)
        try a.send([UInt8](repeating: 0xAB, count: 40))
        try a.send(bytes("0a 03 00"))
        var small = [UInt8](repeating: 0, count: 16)
        #expect(throws: LinkError.pduTooLarge(size: 40, limit: 16)) {
            _ = try small.withUnsafeMutableBytes { raw throws(LinkError) in try b.receive(into: raw, timeout: .seconds(1)) }
        }
        #expect(try b.receive(timeout: .seconds(1)) == bytes("0a 03 00"))
    }

    @Test func aPDULongerThanTheMTUIsRefusedBeforeSending() throws {
        let (a, b) = try SeqPacketLink.pair(mtu: 23)
        #expect(throws: LinkError.pduTooLarge(size: 24, limit: 23)) { try a.send([UInt8](repeating: 1, count: 24)) }
        try a.send([UInt8](repeating: 1, count: 23))
        #expect(try b.receive(timeout: .seconds(1))?.count == 23)
    }

    @Test func queuedPDUsAreDeliveredBeforeTheHangUpIsReported() throws {
        let (a, b) = try SeqPacketLink.pair()
        try a.send(bytes("1b 29 00 06 48"))
        a.close()
        #expect(try b.receive(timeout: .seconds(1)) == bytes("1b 29 00 06 48"))
        #expect(throws: LinkError.closed) { _ = try b.receive(timeout: .seconds(1)) }
        #expect(throws: LinkError.closed) { try b.send(bytes("01")) }
    }

    @Test func aLocallyClosedLinkRefusesEverythingAndCloseIsIdempotent() throws {
        let (a, _) = try SeqPacketLink.pair()
        a.close()
        a.close()
        #expect(a.pollDescriptor == nil)
        #expect(throws: LinkError.closed) { try a.send(bytes("01")) }
        #expect(throws: LinkError.closed) { _ = try a.receive(timeout: .zero) }
    }

    @Test func anEmptyDatagramIsNotMistakenForAHangUp() throws {
        let (a, b) = try SeqPacketLink.pair()
        try a.send([])
        #expect(try b.receive(timeout: .seconds(1)) == [])
        try a.send(bytes("01"))
        #expect(try b.receive(timeout: .seconds(1)) == bytes("01"))
    }

    @Test func receiveReturnsNilOnlyAfterItsTimeoutHasPassed() throws {
        let (a, b) = try SeqPacketLink.pair()
        defer { a.close() }
        let start = ContinuousClock.now
        #expect(try b.receive(timeout: .milliseconds(30)) == nil)
        #expect(ContinuousClock.now - start >= .milliseconds(30))
    }

    @Test func interruptedPollAndRecvAreRetriedTransparently() throws {
        let mock = MockSystem()
        let (a, b) = try SeqPacketLink.pair(system: mock.system)
        try a.send(bytes("0a 03 00"))
        mock.fail("poll", with: .interrupted, times: 2)
        mock.fail("recv", with: .interrupted, times: 3)
        #expect(try b.receive(timeout: .seconds(1)) == bytes("0a 03 00"))
        let descriptor = try #require(b.pollDescriptor)
        #expect(mock.calls(named: "recv").filter { $0.descriptor == descriptor }.count == 4)
    }

    @Test func interruptedSendIsRetried() throws {
        let mock = MockSystem()
        let (a, b) = try SeqPacketLink.pair(system: mock.system)
        mock.fail("send", with: .interrupted, times: 2)
        try a.send(bytes("12 2a 00 01 00"))
        #expect(try b.receive(timeout: .seconds(1)) == bytes("12 2a 00 01 00"))
        #expect(mock.calls(named: "send").count == 3)
    }

    @Test func receiveAsksTheKernelForTheRealLengthAndNeverBlocksInRecv() throws {
        let mock = MockSystem()
        let (a, b) = try SeqPacketLink.pair(system: mock.system)
        try a.send(bytes("01"))
        _ = try b.receive(timeout: .seconds(1))
        let recv = try #require(mock.calls(named: "recv").first)
        #expect(recv.flags & Int32(MSG_TRUNC) != 0)
        #expect(recv.flags & Int32(MSG_DONTWAIT) != 0)
        let send = try #require(mock.calls(named: "send").first)
        #expect(send.flags & Int32(MSG_NOSIGNAL) != 0, "a hang-up must be an error, not SIGPIPE")
        #expect(send.detail == "1")
    }

    @Test func otherFailuresNameTheSystemCall() throws {
        let mock = MockSystem()
        let (a, b) = try SeqPacketLink.pair(system: mock.system)
        try a.send(bytes("01"))
        mock.fail("recv", with: .noMemory)
        #expect(throws: LinkError.system(call: "recv", errno: ENOMEM)) { _ = try b.receive(timeout: .seconds(1)) }
        mock.fail("poll", with: .invalidArgument)
        #expect(throws: LinkError.system(call: "poll", errno: EINVAL)) { _ = try b.receive(timeout: .seconds(1)) }
        mock.fail("send", with: .noMemory)
        #expect(throws: LinkError.system(call: "send", errno: ENOMEM)) { try a.send(bytes("01")) }
    }

    @Test func resetFromThePeerIsAHangUp() throws {
        let mock = MockSystem()
        let (_, b) = try SeqPacketLink.pair(system: mock.system)
        mock.fail("send", with: .connectionReset)
        #expect(throws: LinkError.closed) { try b.send(bytes("01")) }
    }

    @Test func closingReleasesTheDescriptorExactlyOnce() throws {
        let mock = MockSystem()
        let (a, _) = try SeqPacketLink.pair(system: mock.system)
        let descriptor = try #require(a.pollDescriptor)
        a.close()
        a.close()
        #expect(mock.calls(named: "close").filter { $0.descriptor == descriptor }.count == 1)
    }

    @Test func linkErrorsReadWell() {
        #expect(LinkError.system("connect /run/x", .connectionRefused).description == "connect /run/x failed: Connection refused (errno 111)")
        #expect(LinkError.system("recv", .noMemory).errno == .noMemory)
        #expect(LinkError.closed.errno == nil)
    }
}
