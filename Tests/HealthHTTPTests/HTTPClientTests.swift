#if canImport(Glibc)
import Glibc
#endif
@testable import HealthHTTP
import Testing

/// A stream's view of its client: woken by its signal, by the client hanging up, or by the
/// timeout; bytes the client sends meanwhile are read and dropped.
@Suite struct HTTPClientTests {
    /// A connected pair of stream sockets (the server's end first) and a pipe to signal with.
    final class Ends {
        var server: Int32 = -1
        var peer: Int32 = -1
        var signalRead: Int32 = -1
        var signalWrite: Int32 = -1

        init() throws {
            var pair: [Int32] = [-1, -1]
            try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
            (server, peer) = (pair[0], pair[1])
            var pipeEnds: [Int32] = [-1, -1]
            try #require(pipe(&pipeEnds) == 0)
            (signalRead, signalWrite) = (pipeEnds[0], pipeEnds[1])
        }

        var client: HTTPClient { HTTPClient(descriptor: server) }

        func closePeer() {
            close(peer)
            peer = -1
        }

        deinit { for descriptor in [server, peer, signalRead, signalWrite] where descriptor >= 0 { close(descriptor) } }
    }

    @Test func nothingHappeningTimesOut() throws {
        let ends = try Ends()
        #expect(ends.client.wait(for: ends.signalRead, milliseconds: 0) == .timedOut)
        #expect(ends.client.wait(for: -1, milliseconds: 10) == .timedOut)
        #expect(!ends.client.hasLeft)
    }

    @Test func aReadableSignalWakesTheStream() throws {
        let ends = try Ends()
        var byte: UInt8 = 1
        #expect(write(ends.signalWrite, &byte, 1) == 1)
        #expect(ends.client.wait(for: ends.signalRead, milliseconds: 5_000) == .signalled)
    }

    @Test func aClientThatHangsUpIsSeenAtOnceAndBeforeASignal() throws {
        let ends = try Ends()
        var byte: UInt8 = 1
        #expect(write(ends.signalWrite, &byte, 1) == 1)
        ends.closePeer()
        #expect(ends.client.wait(for: ends.signalRead, milliseconds: 5_000) == .left)
        #expect(ends.client.hasLeft)
    }

    @Test func bytesTheClientSendsAreDroppedAndAreNoHangUp() throws {
        let ends = try Ends()
        let bytes = Array("GET /more HTTP/1.1\r\n\r\n".utf8)
        #expect(write(ends.peer, bytes, bytes.count) == bytes.count)
        #expect(ends.client.wait(for: -1, milliseconds: 50) == .timedOut)
        #expect(!ends.client.hasLeft)
        // Read and dropped: nothing is left on the server's end.
        var buffer = [UInt8](repeating: 0, count: 64)
        #expect(recv(ends.server, &buffer, buffer.count, Int32(MSG_DONTWAIT)) == -1 && errno == EAGAIN)
        // Sending and then leaving is leaving.
        #expect(write(ends.peer, bytes, bytes.count) == bytes.count)
        ends.closePeer()
        #expect(ends.client.wait(for: -1, milliseconds: 5_000) == .left)
    }

    @Test func noClientHasNotLeft() {
        #expect(!HTTPClient(descriptor: -1).hasLeft)
    }
}
