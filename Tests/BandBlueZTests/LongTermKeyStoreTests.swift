import BandBlueZ
import BandTestSupport
import BandWire
import Dispatch
import Glibc
import Synchronization
import Testing

@Suite("LongTermKeyStore")
struct LongTermKeyStoreTests {
    static let adapter = try! BluetoothAddress("00:AA:01:01:00:23")
    static let otherAdapter = try! BluetoothAddress("00:AA:01:02:00:23")
    static let band = LEAddress(try! BluetoothAddress("00:AA:01:00:00:24"), type: .public)

    static func key(_ first: UInt8, peer: LEAddress = band, central: Bool = false) -> LongTermKey {
        LongTermKey(peer: peer, keyType: 2, central: central, encryptionSize: 16, ediv: 0xBEEF, rand: 0x1122334455667788,
                    value: [first] + [UInt8](repeating: 0xAB, count: 15))
    }

    @Test func anAbsentFileHoldsNoKeys() throws {
        let directory = TemporaryDirectory()
        #expect(try LongTermKeyStore(path: "\(directory.path)/keys").load() == [])
    }

    @Test func savedKeysComeBackExactlyPerAdapter() throws {
        let directory = TemporaryDirectory()
        let store = LongTermKeyStore(path: "\(directory.path)/keys")
        try store.save(Self.key(1), adapter: Self.adapter)
        try store.save(Self.key(2, central: true), adapter: Self.adapter)
        try store.save(Self.key(3), adapter: Self.otherAdapter)
        #expect(try store.keys(forAdapter: Self.adapter) == [Self.key(1), Self.key(2, central: true)])
        #expect(try store.keys(forAdapter: Self.otherAdapter) == [Self.key(3)])
    }

    @Test func aNewKeyForTheSamePeerAndRoleReplacesTheOldOne() throws {
        let directory = TemporaryDirectory()
        let store = LongTermKeyStore(path: "\(directory.path)/keys")
        try store.save(Self.key(1), adapter: Self.adapter)
        try store.save(Self.key(9), adapter: Self.adapter)
        #expect(try store.keys(forAdapter: Self.adapter) == [Self.key(9)])
        try store.remove(peer: Self.band, adapter: Self.adapter)
        #expect(try store.keys(forAdapter: Self.adapter) == [])
    }

    @Test func theFileIsPrivateAndReadable() throws {
        let directory = TemporaryDirectory()
        let path = "\(directory.path)/keys"
        try LongTermKeyStore(path: path).save(Self.key(1), adapter: Self.adapter)
        var status = stat()
        #expect(stat(path, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
        #expect(!directory.exists("keys.tmp.\(getpid())"))
        let text = try #require(String(validatingUTF8: try readAll(path)))
        #expect(text.contains("00:AA:01:01:00:23 00:AA:01:00:00:24 public 2 0 16 efbe 8877665544332211 01ababababababababababababababab\n"))
    }

    @Test func aMalformedLineIsReportedWithItsNumber() throws {
        let directory = TemporaryDirectory()
        let path = "\(directory.path)/keys"
        try write("# comment\n\n00:AA:01:01:00:23 00:AA:01:00:00:24 public 2 0 16 efbe 8877665544332211 01ab\n", to: path)
        #expect(throws: KeyFileError.malformed(path: path, line: 3, reason: "key value is not 32 hex digits")) {
            _ = try LongTermKeyStore(path: path).load()
        }
        try write("00:AA:01:01:00:23 00:AA:01:00:00:24 sideways 2 0 16 efbe 8877665544332211 01abababababababababababababababab\n", to: path)
        #expect(throws: KeyFileError.malformed(path: path, line: 1, reason: "'sideways' is not a Bluetooth address: address type must be 'public' or 'random'")) {
            _ = try LongTermKeyStore(path: path).load()
        }
        try write("00:AA:01:01:00:23 00:AA:01:00:00:24 public 2 0 3 efbe 8877665544332211 01abababababababababababababababab\n", to: path)
        #expect(throws: KeyFileError.malformed(path: path, line: 1, reason: "encryption size '3' is not 7…16")) {
            _ = try LongTermKeyStore(path: path).load()
        }
    }

    @Test func anUnwritableDirectoryIsAnErrorNamingThePath() throws {
        let path = "/proc/bandkit-no-such-dir/keys"
        #expect(throws: KeyFileError.self) { try LongTermKeyStore(path: path).save(Self.key(1), adapter: Self.adapter) }
    }

    private func write(_ text: String, to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        #expect(fd >= 0)
        _ = text.withCString { Glibc.write(fd, $0, strlen($0)) }
        close(fd)
    }

    private func readAll(_ path: String) throws -> [CChar] {
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = read(fd, &buffer, 4095)
        return Array(buffer[0..<max(0, count)]) + [0]
    }
}

/// Concurrent saves into one key file keep every key: each load–modify–replace holds the lock
/// beside the file. Threads open the lock file separately, so they exclude each other as
/// processes do; without the lock most of these keys were lost.
@Suite struct LongTermKeyStoreConcurrencyTests {
    @Test func eightWritersAtOnceKeepAllTheirKeys() throws {
        let directory = TemporaryDirectory()
        let path = "\(directory.path)/keys"
        let adapter = try BluetoothAddress("00:AA:01:01:00:23")
        let writers = 8, keysEach = 12
        let failures = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: writers) { writer in
            let store = LongTermKeyStore(path: path)
            for index in 0..<keysEach {
                let peer = LEAddress(BluetoothAddress(UInt64(0xAA00_0000_0000) | UInt64(writer) << 8 | UInt64(index)), type: .public)
                let key = LongTermKey(peer: peer, keyType: 2, central: false, encryptionSize: 16, ediv: 1, rand: 2,
                                      value: [UInt8](repeating: UInt8(index), count: 16))
                do { try store.save(key, adapter: adapter) } catch { failures.add(1, ordering: .relaxed) }
            }
        }
        #expect(failures.load(ordering: .relaxed) == 0)
        #expect(try LongTermKeyStore(path: path).load().count == writers * keysEach)
    }
}
