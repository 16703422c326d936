import BandKitSystem
import BandLink
import BandWire
#if canImport(Glibc)
import Glibc
#endif

/// LE long-term keys kept on disk between runs, so a bonded band re-encrypts without pairing
/// again (the job bluetoothd's /var/lib/bluetooth does, for runs without bluetoothd).
///
/// A text file, mode 0600, one key per line, fields separated by spaces:
///
/// ```
/// # adapter peer peer-type key-type central enc-size ediv rand value
/// 00:AA:01:00:00:23 00:AA:01:01:00:24 public 2 0 16 0000 0000000000000000 00112233445566778899aabbccddeeff
/// ```
///
/// `ediv` (4 hex digits), `rand` (16) and `value` (32) are the management API's little-endian
/// bytes as hex. Written through ``SystemCalls/replaceFile(at:with:mode:)`` (temporary file set
/// to 0600, fsynced, renamed over the old one, directory fsynced), so a crash or power cut leaves
/// either the old or the new file, never half of one; changes hold an exclusive `flock` on
/// `PATH.lock` from load to rename, so concurrent pairings each keep their key.
public struct LongTermKeyStore: Sendable {
    public struct Entry: Hashable, Sendable {
        public var adapter: BluetoothAddress
        public var key: LongTermKey
        public init(adapter: BluetoothAddress, key: LongTermKey) {
            self.adapter = adapter
            self.key = key
        }
    }

    public let path: String
    private let system: SystemCalls

    /// `$XDG_CONFIG_HOME/bandkit/bluetooth-keys`, else `~/.config/bandkit/bluetooth-keys`
    /// (beside the reader's keystore), else `/tmp/bandkit-<uid>/bluetooth-keys`.
    public static func defaultPath(environment: [String: String] = SocketPath.currentEnvironment()) -> String {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") { return "\(config)/bandkit/bluetooth-keys" }
        if let home = environment["HOME"], home.hasPrefix("/") { return "\(home)/.config/bandkit/bluetooth-keys" }
        return "\(SocketPath.defaultDirectory(environment: [:]))/bluetooth-keys"
    }

    public init(path: String, system: SystemCalls = .live) {
        self.path = path
        self.system = system
    }

    /// Every stored key; an absent file holds none. A malformed line is an error naming it.
    public func load() throws(KeyFileError) -> [Entry] {
        let bytes: [UInt8]
        switch system.readFile(path: path) {
        case .success(let contents): bytes = contents
        case .failure(.noSuchFileOrDirectory): return []
        case .failure(let error): throw .system(call: "read", path: path, errno: error)
        }
        var entries: [Entry] = []
        for (number, line) in String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let text = line.trimmingCharacters(in: " \t\r")
            if text.isEmpty || text.hasPrefix("#") { continue }
            entries.append(try Self.parse(text, path: path, line: number + 1))
        }
        return entries
    }

    /// The keys for one adapter (what Load Long Term Keys wants).
    public func keys(forAdapter adapter: BluetoothAddress) throws(KeyFileError) -> [LongTermKey] {
        try load().filter { $0.adapter == adapter }.map(\.key)
    }

    /// Adds `key` for `adapter`, replacing a key for the same peer and role.
    public func save(_ key: LongTermKey, adapter: BluetoothAddress) throws(KeyFileError) {
        try whileLocked { () throws(KeyFileError) in
            var entries = try load()
            entries.removeAll { $0.adapter == adapter && $0.key.occupiesSameSlot(as: key) }
            entries.append(Entry(adapter: adapter, key: key))
            try write(entries)
        }
    }

    /// Removes every key for `peer` on `adapter` (unpairing).
    public func remove(peer: LEAddress, adapter: BluetoothAddress) throws(KeyFileError) {
        try whileLocked { () throws(KeyFileError) in
            let entries = try load()
            let kept = entries.filter { !($0.adapter == adapter && $0.key.peer == peer) }
            if kept.count != entries.count { try write(kept) }
        }
    }

    /// The lock file beside the key file: `PATH.lock`.
    public var lockPath: String { path + ".lock" }

    /// A load–modify–write under the exclusive lock on ``lockPath``, as the keystore does:
    /// concurrent pairings each keep their key.
    private func whileLocked(_ body: () throws(KeyFileError) -> Void) throws(KeyFileError) {
        do throws(LockedFileError<KeyFileError>) {
            try system.withExclusiveLock(lockPath, body)
        } catch {
            switch error {
            case .lock(let failure): throw .system(call: failure.call, path: failure.path, errno: failure.errno)
            case .body(let failure): throw failure
            }
        }
    }

    private func write(_ entries: [Entry]) throws(KeyFileError) {
        var text = "# BandKit LE long-term keys. Secret: keep mode 0600.\n# adapter peer peer-type key-type central enc-size ediv rand value\n"
        for entry in entries { text += Self.format(entry) + "\n" }
        if case .failure(let error) = system.replaceFile(at: path, with: Array(text.utf8), mode: 0o600) {
            throw .system(call: error.call, path: error.path, errno: error.errno)
        }
    }

    static func format(_ entry: Entry) -> String {
        let key = entry.key
        let ediv = [UInt8(key.ediv & 0xFF), UInt8(key.ediv >> 8)]
        let rand = (0..<8).map { UInt8(truncatingIfNeeded: key.rand >> (8 * UInt64($0))) }
        return [
            entry.adapter.description, key.peer.address.description, key.peer.type.description,
            String(key.keyType), key.central ? "1" : "0", String(key.encryptionSize),
            Hex.encode(ediv), Hex.encode(rand), Hex.encode(key.value),
        ].joined(separator: " ")
    }

    static func parse(_ line: String, path: String, line number: Int) throws(KeyFileError) -> Entry {
        func fail(_ reason: String) -> KeyFileError { .malformed(path: path, line: number, reason: reason) }
        let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard fields.count == 9 else { throw fail("expected 9 fields, found \(fields.count)") }
        let adapter: BluetoothAddress, peer: BluetoothAddress, peerType: LEAddressType
        do throws(AddressSyntaxError) {
            adapter = try BluetoothAddress(fields[0])
            peer = try BluetoothAddress(fields[1])
            peerType = try LEAddressType(fields[2])
        } catch { throw fail(error.description) }
        guard let keyType = UInt8(fields[3]), keyType <= 4 else { throw fail("key type '\(fields[3])' is not 0…4") }
        guard fields[4] == "0" || fields[4] == "1" else { throw fail("central '\(fields[4])' is not 0 or 1") }
        guard let size = UInt8(fields[5]), (7...16).contains(size) else { throw fail("encryption size '\(fields[5])' is not 7…16") }
        guard let ediv = Hex.decode(fields[6]), ediv.count == 2 else { throw fail("ediv '\(fields[6])' is not 4 hex digits") }
        guard let rand = Hex.decode(fields[7]), rand.count == 8 else { throw fail("rand '\(fields[7])' is not 16 hex digits") }
        guard let value = Hex.decode(fields[8]), value.count == 16 else { throw fail("key value is not 32 hex digits") }
        let key = LongTermKey(
            peer: LEAddress(peer, type: peerType), keyType: keyType, central: fields[4] == "1", encryptionSize: size,
            ediv: UInt16(ediv[0]) | UInt16(ediv[1]) << 8,
            rand: rand.enumerated().reduce(0) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) },
            value: value)
        return Entry(adapter: adapter, key: key)
    }
}

/// Why the key file could not be read or written.
public enum KeyFileError: Error, Equatable, Sendable, CustomStringConvertible {
    case system(call: String, path: String, errno: Errno)
    case malformed(path: String, line: Int, reason: String)

    public var description: String {
        switch self {
        case .system(let call, let path, let errno): return "\(call) \(path) failed: \(errno)"
        case .malformed(let path, let line, let reason): return "\(path):\(line): \(reason)"
        }
    }
}

extension StringProtocol {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var scalars = Substring(self)
        while let first = scalars.first, set.contains(first) { scalars = scalars.dropFirst() }
        while let last = scalars.last, set.contains(last) { scalars = scalars.dropLast() }
        return String(scalars)
    }
}
