import BandReader
import BandTestSupport
import Foundation
import Testing
@testable import BandGateway

/// The gateway's files: the lock that keeps a second gateway off a keystore, and the watch that
/// sees `band pair` and `band forget` replace the keystore.
struct GatewayFilesTests {
    @Test func aSecondGatewayOnTheSameKeystoreIsRefusedNamingTheHoldersPID() throws {
        let directory = TemporaryDirectory()
        let keystore = directory.path + "/keys.json"
        let first = try GatewayLock(keystorePath: keystore)
        do {
            _ = try GatewayLock(keystorePath: keystore)
            Issue.record("a second lock was taken")
        } catch {
            guard case .held(let path, let pid) = error else { Issue.record("\(error)"); return }
            #expect(path == keystore + ".gateway" && pid == getpid())
            #expect(error.description.contains("another gateway (PID \(getpid()))"), "\(error)")
        }
        withExtendedLifetime(first) {}
    }

    @Test func theLockIsFreeAgainOnceItsHolderIsGone() throws {
        let directory = TemporaryDirectory()
        let keystore = directory.path + "/keys.json"
        do { _ = try GatewayLock(keystorePath: keystore) }
        _ = try GatewayLock(keystorePath: keystore)
    }

    @Test func theWatchSeesTheKeystoreReplacedAndNothingElse() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/keys.json"
        let keystore = Keystore(path: path)
        let watch = KeystoreWatch(keystorePath: path)
        #expect(watch.pollDescriptor != nil)
        #expect(!watch.keystoreChanged())
        FileManager.default.createFile(atPath: directory.path + "/socket-bonds", contents: Data("x".utf8))
        #expect(!watch.keystoreChanged(), "another file in the directory")
        try keystore.save(PairedBand(address: "sim:/a", readerID: 1, key: [1], device: BandDeviceInfo(), pairedAt: Date()))
        #expect(watch.keystoreChanged())
        #expect(!watch.keystoreChanged(), "each change is reported once")
        try keystore.remove("sim:/a")
        #expect(watch.keystoreChanged())
    }
}
