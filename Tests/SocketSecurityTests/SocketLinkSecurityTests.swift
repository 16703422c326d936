import BandLink
import BandTestSupport
import BandWire
import Glibc
import SocketSecurity
import Testing

/// The reader's driver over a real socket pair, and the bond file.
@Suite struct SocketLinkSecurityTests {
    static func counting() -> (Int) -> [UInt8] {
        var next: UInt8 = 100
        return { count in (0..<count).map { _ in next &+= 1; return next } }
    }

    @Test func aServerWithoutLinkSecurityAnswersRequestNotSupportedAndTheLinkGoesOn() throws {
        let (reader, band) = try SeqPacketLink.pair()
        defer { reader.close(); band.close() }
        // The band answers first, as a GATT server answers an unknown request (ATT Error Response,
        // request opcode 0x3F, handle 0, Request Not Supported): queued before the driver reads.
        try band.send([0x01, 0x3F, 0x00, 0x00, 0x06])
        var initiator = SocketPairingInitiator(mode: .pair(ioCapability: .keyboardOnly), random: Self.counting())
        let outcome = SocketLinkSecurity.run(&initiator, on: reader, passkey: { Issue.record("asked"); return nil })
        #expect(outcome == .noLinkSecurity)
        #expect(try band.receive(timeout: .seconds(1))?.prefix(2) == [0x3F, 0x01], "the Pairing Request went out")
    }

    @Test func anATTPDUBeforeTheAnswerIsAProtocolErrorAndSilenceTimesOut() throws {
        let (reader, band) = try SeqPacketLink.pair()
        defer { reader.close(); band.close() }
        try band.send([0x1B, 0x03, 0x00, 0x48])
        var initiator = SocketPairingInitiator(mode: .pair(ioCapability: .keyboardOnly), random: Self.counting())
        guard case .failed(.unexpected(let why)) = SocketLinkSecurity.run(&initiator, on: reader, passkey: { nil }) else {
            Issue.record("an ATT notification was taken for a security answer"); return
        }
        #expect(why.contains("opcode 0x1b"))

        var waiting = SocketPairingInitiator(mode: .pair(ioCapability: .keyboardOnly), random: Self.counting())
        #expect(SocketLinkSecurity.run(&waiting, on: reader, timeout: .milliseconds(50), passkey: { nil }) == .failed(.timedOut))
    }

    @Test func aBrokenAnswerIsMalformedWithItsOffset() throws {
        let (reader, band) = try SeqPacketLink.pair()
        defer { reader.close(); band.close() }
        try band.send([0x3F, 0x02, 0x00])
        var initiator = SocketPairingInitiator(mode: .pair(ioCapability: .keyboardOnly), random: Self.counting())
        #expect(SocketLinkSecurity.run(&initiator, on: reader, passkey: { nil }) == .failed(.malformed(ParseError(.truncated, at: 3, field: "OOB data flag"))))
    }

    @Test func theBondFileKeepsOneBondPerSocketPathAndRefusesDamage() throws {
        let directory = TemporaryDirectory()
        let file = SocketBondFile(path: directory.path + "/socket-bonds")
        #expect(try file.bond(for: "/tmp/a b.sock") == nil)
        let first = SocketBond(ediv: 0xA1B2, rand: 0x1122_3344_5566_7788, longTermKey: (0..<16).map { UInt8($0) })
        var second = first
        second.ediv = 7
        try file.save(first, for: "/tmp/a b.sock")
        try file.save(second, for: "/tmp/other.sock")
        try file.save(second, for: "/tmp/a b.sock")
        #expect(try file.bond(for: "/tmp/a b.sock") == second)
        #expect(try file.bond(for: "/tmp/other.sock") == second)
        var status = stat()
        #expect(stat(file.path, &status) == 0 && status.st_mode & 0o777 == 0o600)
        #expect(try file.remove(for: "/tmp/a b.sock"))
        #expect(try !file.remove(for: "/tmp/a b.sock"))
        #expect(try file.bond(for: "/tmp/a b.sock") == nil)
        #expect(throws: SocketBondFileError.self) { try file.save(first, for: "/tmp/line\nbreak") }

        let damaged = directory.path + "/damaged"
        let fd = open(damaged, O_WRONLY | O_CREAT, 0o600)
        _ = "# comment\nzz 0011223344556677 00112233445566778899aabbccddeeff /x\n".withCString { write(fd, $0, strlen($0)) }
        close(fd)
        #expect(throws: SocketBondFileError.malformed(path: damaged, line: 2, reason: "ediv 'zz' is not 4 hex digits")) {
            try SocketBondFile(path: damaged).bond(for: "/x")
        }
    }
}
