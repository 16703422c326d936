import BandLink
import BandTestSupport
import Glibc
import Testing

@Suite("SeqPacketListener")
struct SeqPacketListenerTests {
    @Test func acceptedConnectionCarriesPDUsBothWays() throws {
        let directory = TemporaryDirectory()
        let listener = try SeqPacketListener(path: "\(directory.path)/band.sock")
        let client = try SeqPacketLink.connect(path: listener.path)
        let server = try #require(try listener.accept(timeout: .seconds(1)))
        try client.send(bytes("10 01 00 ff ff 00 28"))
        #expect(try server.receive(timeout: .seconds(1)) == bytes("10 01 00 ff ff 00 28"))
        try server.send(bytes("01 10 01 00 0a"))
        #expect(try client.receive(timeout: .seconds(1)) == bytes("01 10 01 00 0a"))
    }

    @Test func acceptReturnsNilWhenNobodyConnects() throws {
        let directory = TemporaryDirectory()
        let listener = try SeqPacketListener(path: "\(directory.path)/band.sock")
        #expect(try listener.accept(timeout: .milliseconds(20)) == nil)
    }

    @Test func aStaleSocketFileFromACrashedServerIsReplaced() throws {
        let directory = TemporaryDirectory()
        let path = "\(directory.path)/band.sock"
        // A bound socket whose descriptor is closed without unlinking: what a crash leaves.
        let stale = socket(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(stale, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)
        close(stale)
        #expect(directory.exists("band.sock"))

        let listener = try SeqPacketListener(path: path)
        let client = try SeqPacketLink.connect(path: path)
        #expect(try listener.accept(timeout: .seconds(1)) != nil)
        client.close()
    }

    @Test func aLiveServersSocketIsNeverTakenOver() throws {
        let directory = TemporaryDirectory()
        let path = "\(directory.path)/band.sock"
        let first = try SeqPacketListener(path: path)
        #expect(throws: LinkError.system(call: "bind \(path) (another server is listening there)", errno: EADDRINUSE)) {
            _ = try SeqPacketListener(path: path)
        }
        // The first server still works.
        _ = try SeqPacketLink.connect(path: path)
        #expect(try first.accept(timeout: .seconds(1)) != nil)
    }

    @Test func aRegularFileInTheWayIsNeverDeleted() throws {
        let directory = TemporaryDirectory()
        let path = "\(directory.path)/band.sock"
        let fd = open(path, O_CREAT | O_WRONLY, 0o600)
        close(fd)
        #expect(throws: LinkError.system(call: "bind \(path) (exists and is not a socket)", errno: EADDRINUSE)) {
            _ = try SeqPacketListener(path: path)
        }
        #expect(directory.exists("band.sock"))
    }

    @Test func closingTheListenerRemovesItsSocketFile() throws {
        let directory = TemporaryDirectory()
        let listener = try SeqPacketListener(path: "\(directory.path)/band.sock")
        #expect(directory.exists("band.sock"))
        listener.close()
        listener.close()
        #expect(!directory.exists("band.sock"))
        #expect(throws: LinkError.closed) { _ = try listener.accept(timeout: .zero) }
    }

    @Test func connectingWhereNobodyListensFailsAtOnceNamingThePath() throws {
        let directory = TemporaryDirectory()
        let path = "\(directory.path)/absent.sock"
        #expect(throws: LinkError.system(call: "connect \(path)", errno: ENOENT)) { _ = try SeqPacketLink.connect(path: path) }
    }

    @Test func aPathTooLongForSockaddrUnIsRefused() {
        let path = "/tmp/" + String(repeating: "x", count: 120)
        #expect(throws: LinkError.system(call: "socket path", errno: ENAMETOOLONG)) { _ = try SeqPacketListener(path: path) }
    }

    @Test func connectUsesAnAFUnixSeqPacketSocketAtThePath() throws {
        let directory = TemporaryDirectory()
        let listener = try SeqPacketListener(path: "\(directory.path)/band.sock")
        let mock = MockSystem()
        _ = try SeqPacketLink.connect(path: listener.path, system: mock.system)
        let socketCall = try #require(mock.calls(named: "socket").first)
        #expect(socketCall.detail == "domain \(AF_UNIX)")
        #expect(socketCall.flags & 0xF == Int32(SOCK_SEQPACKET.rawValue))
        #expect(socketCall.flags & Int32(SOCK_CLOEXEC.rawValue) != 0)
        #expect(mock.calls(named: "connect").map(\.detail) == [listener.path])
    }

    @Test func anAbortedConnectionDuringAcceptIsSkipped() throws {
        let directory = TemporaryDirectory()
        let mock = MockSystem()
        let listener = try SeqPacketListener(path: "\(directory.path)/band.sock", system: mock.system)
        _ = try SeqPacketLink.connect(path: listener.path)
        mock.fail("accept4", with: .connectionAborted)
        mock.fail("accept4", with: .interrupted)
        #expect(try listener.accept(timeout: .seconds(1)) != nil)
        #expect(mock.calls(named: "accept4").count == 3)
        #expect(mock.calls(named: "accept4").allSatisfy { $0.flags & Int32(SOCK_CLOEXEC.rawValue) != 0 })
    }

    @Test func defaultPathPrefersTheRuntimeDirectory() {
        #expect(SocketPath.defaultPath(environment: ["XDG_RUNTIME_DIR": "/run/user/1000"]) == "/run/user/1000/bandkit/band.sock")
        #expect(SocketPath.defaultPath(environment: [:]) == "/tmp/bandkit-\(getuid())/band.sock")
        #expect(SocketPath.defaultPath(environment: ["XDG_RUNTIME_DIR": "relative"]) == "/tmp/bandkit-\(getuid())/band.sock")
    }

    @Test func prepareDirectoryCreatesItPrivateAndAcceptsAnExistingOne() throws {
        let directory = TemporaryDirectory()
        let path = "\(directory.path)/bandkit"
        try SocketPath.prepareDirectory(path)
        try SocketPath.prepareDirectory(path)
        var status = stat()
        #expect(stat(path, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o700)
        rmdir(path)
    }
}
