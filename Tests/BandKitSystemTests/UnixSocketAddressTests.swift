#if canImport(Glibc)
import Glibc
#endif
import BandKitSystem
import Testing

/// The one `sockaddr_un`: a path as it is, `@name` in the abstract namespace only when asked for.
@Suite struct UnixSocketAddressTests {
    func bytes(_ address: UnixSocketAddress?) -> [UInt8]? { address?.withBytes { Array($0) } }

    @Test func aPathEndsInItsNULAndAnAbstractNameBeginsWithOne() {
        let family = withUnsafeBytes(of: sa_family_t(AF_UNIX)) { Array($0) }
        #expect(bytes(UnixSocketAddress(path: "/run/a.sock")) == family + Array("/run/a.sock".utf8) + [0])
        #expect(bytes(UnixSocketAddress(name: "/run/a.sock")) == family + Array("/run/a.sock".utf8) + [0])
        #expect(bytes(UnixSocketAddress(name: "@notify")) == family + [0] + Array("notify".utf8))
        // As a path, a leading @ is part of a file name.
        #expect(bytes(UnixSocketAddress(path: "@notify")) == family + Array("@notify".utf8) + [0])
    }

    @Test func refusesWhatTheKernelCannotTake() {
        let longest = String(repeating: "a", count: UnixSocketAddress.maximumNameBytes)
        #expect(UnixSocketAddress.maximumNameBytes == 107)
        #expect(UnixSocketAddress(path: longest) != nil && UnixSocketAddress(path: longest + "a") == nil)
        #expect(UnixSocketAddress(name: "@" + longest) != nil && UnixSocketAddress(name: "@" + longest + "a") == nil)
        for bad in ["", "a\u{0}b"] { #expect(UnixSocketAddress(path: bad) == nil && UnixSocketAddress(name: bad) == nil) }
        #expect(UnixSocketAddress(name: "@") == nil)
    }
}
