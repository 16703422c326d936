#if canImport(Glibc)
import Glibc
#endif
import BandControllerLink
import BandLEHost
import BandWire
import Testing

/// ``ControllerLink`` against a controller played through a socket pair.
@Suite struct ControllerLinkTests {
    /// A controller sending garbage gets one log line per burst, naming how many bytes and
    /// where they start, not one per byte: a burst that arrives in two reads is still one line,
    /// and a later burst is a line of its own.
    @Test func strayBytesAreLoggedOnceABurst() throws {
        var pair: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { close(pair[1]) }
        let configuration = Array("Band".utf8).withUnsafeBytes {
            LEHostConfiguration.band(name: $0, services: [BluetoothUUID](), attMTU: 247, ioCapability: 0x00)
        }
        let link = ControllerLink(descriptor: pair[0], address: .serial(path: "/dev/null"), configuration: configuration,
                                  bonds: try BondFile.load(path: nil).get())
        var lines: [String] = []
        link.onNote = { if case .log(let line) = $0 { lines.append(line) } }
        var reset = [UInt8](repeating: 0, count: 4)
        #expect(read(pair[1], &reset, 4) == 4, "HCI Reset sent")
        func controllerSends(_ bytes: [UInt8]) {
            #expect(write(pair[1], bytes, bytes.count) == bytes.count)
            link.handle([pollfd(fd: pair[0], events: Int16(POLLIN), revents: Int16(POLLIN))], now: .now, budget: .milliseconds(50))
        }
        func controllerQuiet() { link.handle([pollfd](), now: .now, budget: .milliseconds(50)) }

        controllerSends(Array(0x10..<0x40))
        controllerSends(Array(0x40..<0x60))
        #expect(lines.isEmpty, "the burst goes on")
        controllerQuiet()
        #expect(lines == ["dropped 80 bytes from stream offset 0: no H4 packet starts with them (the controller is out of step or not speaking H4)"])
        controllerSends([0xFF])
        controllerQuiet()
        controllerQuiet()
        #expect(lines.count == 2)
        #expect(lines.last == "dropped 1 byte from stream offset 80: no H4 packet starts with them (the controller is out of step or not speaking H4)")
    }
}
