import BandBlueZ
import BandTestSupport
import BandWire
import Glibc
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
