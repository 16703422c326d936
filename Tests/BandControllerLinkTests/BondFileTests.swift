#if canImport(Glibc)
import Glibc
#endif
import BandControllerLink
import BandLEHost
import BandWire
import Testing

@Suite struct BondFileTests {
    func temporaryPath() -> String {
        var template = Array("/tmp/bondfile-XXXXXX".utf8CString)
        let directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        return directory + "/band.state.bonds"
    }

    func bond(_ last: UInt8, authenticated: Bool = true) -> LEBond {
        LEBond(peer: LEAddress(BluetoothAddress(0x1122_3344_5500 | UInt64(last)), type: .random),
               longTermKey: FixedBytes<16>((0..<16).map { UInt8($0) &+ last }), authenticated: authenticated)
    }

    @Test func bondsSurviveAReload() throws {
        let path = temporaryPath()
        var file = try BondFile.load(path: path).get()
        #expect(file.bonds.isEmpty)
        let saved = [file.save(bond(1)), file.save(bond(2, authenticated: false)),
                     file.save(bond(1, authenticated: false))]   // the same peer again replaces its bond
        #expect(saved == [true, true, true])
        let reloaded = try BondFile.load(path: path).get()
        #expect(reloaded.bonds == [bond(2, authenticated: false), bond(1, authenticated: false)])
        #expect(reloaded.bond(with: bond(2).peer) == bond(2, authenticated: false))
        #expect(reloaded.bond(with: LEAddress(BluetoothAddress(0x99), type: .public)) == nil)
    }

    @Test func aFullFileRefusesAnotherPeer() throws {
        var file = try BondFile.load(path: temporaryPath()).get()
        let filled = (0..<BondFile.capacity).map { file.save(bond(UInt8($0))) }
        #expect(filled.allSatisfy { $0 })
        let another = file.save(bond(200))
        #expect(!another)
        let again = file.save(bond(3, authenticated: false))
        #expect(again)
    }

    @Test func anUnwritablePlaceKeepsNothingAndSaysWhy() throws {
        var file = try BondFile.load(path: "/nonexistent/dir/bonds").get()
        let saved = file.save(bond(1))
        #expect(!saved)
        #expect(file.bonds.isEmpty)
        #expect(file.lastError != nil)
    }

    @Test func damagedFilesNameTheirLine() throws {
        let path = temporaryPath()
        let cases = [
            ("nonsense\n", 1, "expected 'bandkit-le-bonds 1'"),
            ("bandkit-le-bonds 1\n11:22:33:44:55:66 00 authenticated\n", 2, "32 hex digits"),
            ("bandkit-le-bonds 1\nzz 00112233445566778899aabbccddeeff authenticated\n", 2, "not an address"),
            ("bandkit-le-bonds 1\n11:22:33:44:55:66 00112233445566778899aabbccddeeff maybe\n", 2, "authenticated or unauthenticated"),
            ("bandkit-le-bonds 1\n11:22:33:44:55:66\n", 2, "expected ADDRESS KEY"),
        ]
        for (text, line, reason) in cases {
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            _ = Array(text.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            close(fd)
            guard case .failure(let error) = BondFile.load(path: path) else { Issue.record("accepted \(text)"); continue }
            #expect(error.line == line && error.description.contains(reason), "\(error)")
        }
    }
}
