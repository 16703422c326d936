import BandBlueZ
import BandKitSystem
import BandLink
import BandTestSupport
import BandWire
import Synchronization
import Testing

/// Load Long Term Keys clears the adapter's keys before adding: the gateway loads them once and
/// again only when a pairing changed the file, never per session (a load per session cleared
/// the keys under another link that was encrypting).
@Suite("LongTermKeyLoader")
struct LongTermKeyLoaderTests {
    typealias Keys = LongTermKeyStoreTests
    static let band2 = LEAddress(try! BluetoothAddress("00:AA:01:00:00:25"), type: .public)

    /// Every Load Long Term Keys the loader sent, and whether the next one fails.
    final class FakeKernel: Sendable {
        let loads = Mutex<[[LongTermKey]]>([])
        let failNext = Mutex(false)

        func load(_ keys: [LongTermKey]) throws(LinkError) {
            if failNext.withLock({ failing in defer { failing = false }; return failing }) {
                throw .system("mgmt Load Long Term Keys", .busy)
            }
            loads.withLock { $0.append(keys) }
        }
    }

    @Test func theKeysAreLoadedOnceAndAgainOnlyWhenThePairingsChange() throws {
        let directory = TemporaryDirectory()
        let store = LongTermKeyStore(path: "\(directory.path)/smp-keys")
        try store.save(Keys.key(1), adapter: Keys.adapter)
        try store.save(Keys.key(2, peer: Self.band2), adapter: Keys.adapter)
        try store.save(Keys.key(3), adapter: Keys.otherAdapter)
        let kernel = FakeKernel()
        let loader = LongTermKeyLoader(keyStore: store, adapterAddress: Keys.adapter) { keys throws(LinkError) in try kernel.load(keys) }
        #expect(try loader.loadIfChanged() == 2)
        // Two sessions taking their links: the kernel's keys stay as they are.
        #expect(try loader.loadIfChanged() == nil)
        #expect(try loader.loadIfChanged() == nil)
        try store.save(Keys.key(4), adapter: Keys.adapter)  // paired again while the gateway runs
        #expect(try loader.loadIfChanged() == 2)
        #expect(kernel.loads.withLock { $0 } == [[Keys.key(1), Keys.key(2, peer: Self.band2)], [Keys.key(2, peer: Self.band2), Keys.key(4)]])
    }

    @Test func aFailedLoadIsTriedAgainAndAnUnreadableFileNamesItsLine() throws {
        let directory = TemporaryDirectory()
        let store = LongTermKeyStore(path: "\(directory.path)/smp-keys")
        try store.save(Keys.key(1), adapter: Keys.adapter)
        let kernel = FakeKernel()
        let loader = LongTermKeyLoader(keyStore: store, adapterAddress: Keys.adapter) { keys throws(LinkError) in try kernel.load(keys) }
        kernel.failNext.withLock { $0 = true }
        #expect(throws: LinkError.self) { try loader.loadIfChanged() }
        #expect(try loader.loadIfChanged() == 1, "the failure was not taken for a load")
        try SystemCalls.live.replaceFile(at: store.path, with: Array("not a key\n".utf8), mode: 0o600).get()
        #expect { try loader.loadIfChanged() } throws: { "\($0)".contains("smp-keys:1:") }
        #expect(kernel.loads.withLock { $0.count } == 1)
    }
}
