import Foundation
import Testing

/// Passkey pairing through the real `band` and `bandsim` processes on the socket link, where
/// the simulated watch runs SMP's passkey entry as the responder (docs/protocol.md, "Link
/// security on the socket link").
@Suite(.serialized, .enabled(if: Commands.available, "needs bandsim, band and health built (swift build)"))
struct SocketPasskeyPairingTests {
    func bondFile(_ world: DemoWorld) -> String { world.directory + "/config/bandkit/socket-bonds" }

    func pairedAddresses(_ world: DemoWorld) throws -> String {
        let devices = try world.band(["devices", "--json"])
        #expect(devices.status == 0, "\(devices.stderr)")
        return devices.stdout
    }

    @Test func theRightPasskeyBondsAndTheNextConnectionReusesTheBondWithoutAsking() throws {
        let world = try DemoWorld()
        try world.startPeer("infinitime", ["--seed", "5", "--passkey", "024680"])
        let pair = try world.band(["pair", world.address, "--passkey", "024680"])
        #expect(pair.status == 0, "\(pair.stderr)")
        #expect(pair.stdout.contains("bond only"), "\(pair.stdout)")
        #expect(pair.stderr.contains("bonded on the socket link"), "\(pair.stderr)")
        #expect(FileManager.default.fileExists(atPath: bondFile(world)))
        #expect(try pairedAddresses(world).contains(world.address))

        let stream = try world.band(["stream", world.address, "--for", "3s", "--json", "--store", world.store])
        #expect(stream.status == 0, "\(stream.stderr)")
        #expect(!stream.stderr.contains("passkey"), "the bond is reused without asking: \(stream.stderr)")
        let peer = try #require(world.band)
        world.stopBand()
        #expect(peer.stderr.contains("pairing: the screen shows passkey 024680"), "\(peer.stderr)")
        #expect(peer.stderr.components(separatedBy: "shows passkey").count == 2, "one pairing only: \(peer.stderr)")
        #expect(peer.stderr.contains("link encrypted with a stored bond"), "\(peer.stderr)")
    }

    @Test func aBondTheWatchNoLongerHasIsRefusedWithAClearMessage() throws {
        let world = try DemoWorld()
        try world.startPeer("infinitime", ["--seed", "5", "--passkey", "024680"])
        #expect(try world.band(["pair", world.address, "--passkey", "024680"]).status == 0)
        // A new simulator process: bonds live in its memory, so this watch has forgotten the reader.
        world.stopBand()
        try world.startPeer("infinitime", ["--seed", "5", "--passkey", "024680"])
        let stream = try world.band(["stream", world.address, "--for", "3s", "--store", world.store])
        let peer = try #require(world.band)
        world.stopBand()
        #expect(stream.status == 1, "\(stream.stderr)")
        #expect(stream.stderr.contains("the device has no bond with this reader (PIN or Key Missing): run band pair again"), "\(stream.stderr)")
        #expect(peer.stderr.contains("link security failed: no bond for EDIV"), "\(peer.stderr)")
        #expect(!peer.stderr.contains("shows passkey"), "encrypting never pairs on its own: \(peer.stderr)")
    }

    @Test func aWrongPasskeyFailsWithExitOneAndNothingIsStored() throws {
        let world = try DemoWorld()
        try world.startPeer("infinitime", ["--seed", "5", "--passkey", "111111"])
        let pair = try world.band(["pair", world.address, "--passkey", "222222"])
        let peer = try #require(world.band)
        world.stopBand()
        #expect(pair.status == 1, "\(pair.stderr)")
        #expect(pair.stderr.contains("the device refused the passkey"), "\(pair.stderr)")
        #expect(pair.stderr.contains("Confirm Value Failed (0x04)"), "\(pair.stderr)")
        #expect(pair.stderr.contains("nothing stored"), "\(pair.stderr)")
        #expect(peer.stderr.contains("a wrong passkey; Pairing Failed: Confirm Value Failed (0x04)"), "\(peer.stderr)")
        #expect(!FileManager.default.fileExists(atPath: bondFile(world)))
        #expect(try !pairedAddresses(world).contains(world.address))
    }

    @Test func withoutPasskeyOrTerminalTheRunEndsWithExit64NamingTheOption() throws {
        let world = try DemoWorld()
        try world.startPeer("infinitime", ["--seed", "5"])
        let pair = try world.band(["pair", world.address])
        world.stopBand()
        #expect(pair.status == 64, "\(pair.stderr)")
        #expect(pair.stderr.contains("stdin is not a terminal: give it with --passkey N"), "\(pair.stderr)")
        #expect(!FileManager.default.fileExists(atPath: bondFile(world)))
        #expect(try !pairedAddresses(world).contains(world.address))
    }

    @Test func aPasskeyTypedAtTheTerminalPrompt() throws {
        let world = try DemoWorld()
        // No --passkey: the watch shows a fresh random one, read off its stderr as a wearer reads its screen.
        try world.startPeer("infinitime", ["--seed", "5"])
        let terminal = try PseudoTerminal()
        let pair = try world.start("band", ["pair", world.address], standardInput: terminal.replica)
        let peer = try #require(world.band)
        let shown = try #require(waitForPasskey(in: peer), "the watch showed no passkey: \(peer.stderr)")
        #expect(pair.waitForError("type its six digits"), "no prompt: \(pair.stderr)")
        terminal.type(shown + "\n")
        let status = pair.wait(timeout: .seconds(60))
        world.stopBand()
        #expect(status == 0, "\(pair.stderr)")
        #expect(pair.stdout.contains("bond only"))
        #expect(FileManager.default.fileExists(atPath: bondFile(world)))
    }

    /// The six digits after "shows passkey" on the peer's stderr.
    func waitForPasskey(in peer: RunningCommand) -> String? {
        let deadline = ContinuousClock.now.advanced(by: .seconds(60))
        while ContinuousClock.now < deadline {
            if let range = peer.stderr.range(of: "shows passkey ") {
                let digits = peer.stderr[range.upperBound...].prefix(6)
                if digits.count == 6 { return String(digits) }
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return nil
    }
}

/// A pseudo-terminal: the replica is the command's stdin (`isatty` true), the test types into the primary.
final class PseudoTerminal {
    let primary: Int32
    let replica: FileHandle

    // posix_openpt and friends are hidden from Swift's Glibc module (they need _XOPEN_SOURCE):
    // looked up in libc by name.
    private typealias OpenPrimary = @convention(c) (Int32) -> Int32
    private typealias PrimaryCall = @convention(c) (Int32) -> Int32
    private typealias ReplicaName = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?

    private static func libc<T>(_ name: String, as type: T.Type) throws -> T {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { throw WorldError("libc has no \(name)") }
        return unsafeBitCast(symbol, to: type)
    }

    init() throws {
        let openPrimary = try Self.libc("posix_openpt", as: OpenPrimary.self)
        let grant = try Self.libc("grantpt", as: PrimaryCall.self)
        let unlock = try Self.libc("unlockpt", as: PrimaryCall.self)
        let replicaName = try Self.libc("ptsname", as: ReplicaName.self)
        primary = openPrimary(O_RDWR | O_NOCTTY)
        guard primary >= 0, grant(primary) == 0, unlock(primary) == 0, let name = replicaName(primary) else {
            throw WorldError("no pseudo-terminal: \(String(cString: strerror(errno)))")
        }
        let fd = open(name, O_RDWR | O_NOCTTY)
        guard fd >= 0 else { throw WorldError("open \(String(cString: name)): \(String(cString: strerror(errno)))") }
        replica = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }

    deinit { close(primary) }

    func type(_ text: String) {
        _ = text.withCString { write(primary, $0, strlen($0)) }
    }
}
