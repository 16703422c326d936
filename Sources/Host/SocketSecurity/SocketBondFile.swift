#if canImport(Glibc)
import Glibc
#endif
import BandKitSystem
import BandLink
import BandWire

/// The reader's bonds made on socket links (`socket-bonds` beside the keystore), one line per
/// simulator socket — the socket link's counterpart of the LE key file (`smp-keys`):
///
///     # ediv rand long-term-key socket-path
///     1a2b 0011223344556677 00112233445566778899aabbccddeeff /tmp/watch.sock
///
/// Written whole under the lock file (`PATH.lock`) with ``SystemCalls/replaceFile(at:with:mode:)``,
/// mode 0600. The path comes last, so it may hold spaces; a path with a line break is refused.
public struct SocketBondFile: Sendable {
    public let path: String
    private let system: SystemCalls

    public init(path: String, system: SystemCalls = .live) {
        self.path = path
        self.system = system
    }

    /// The bond for the socket at `socketPath`, if one was made.
    public func bond(for socketPath: String) throws(SocketBondFileError) -> SocketBond? {
        try load().last { $0.socketPath == socketPath }?.bond
    }

    /// Keeps `bond` for `socketPath`, replacing an older one.
    public func save(_ bond: SocketBond, for socketPath: String) throws(SocketBondFileError) {
        guard !socketPath.contains(where: \.isNewline) else {
            throw .malformed(path: path, line: 0, reason: "a socket path with a line break cannot be stored")
        }
        try whileLocked { () throws(SocketBondFileError) in
            var entries = try load().filter { $0.socketPath != socketPath }
            entries.append(Entry(socketPath: socketPath, bond: bond))
            try write(entries)
        }
    }

    /// Forgets the bond for `socketPath` (`band forget`); true when there was one.
    @discardableResult
    public func remove(for socketPath: String) throws(SocketBondFileError) -> Bool {
        var removed = false
        try whileLocked { () throws(SocketBondFileError) in
            let entries = try load()
            let kept = entries.filter { $0.socketPath != socketPath }
            removed = kept.count != entries.count
            if removed { try write(kept) }
        }
        return removed
    }

    struct Entry: Equatable {
        var socketPath: String
        var bond: SocketBond
    }

    func load() throws(SocketBondFileError) -> [Entry] {
        let bytes: [UInt8]
        switch system.readFile(path: path) {
        case .success(let contents): bytes = contents
        case .failure(.noSuchFileOrDirectory): return []
        case .failure(let error): throw .system(FileError(call: "read", path: path, errno: error))
        }
        var entries: [Entry] = []
        for (number, line) in String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.isEmpty || line.hasPrefix("#") { continue }
            entries.append(try parse(line, line: number + 1))
        }
        return entries
    }

    private func parse(_ line: Substring, line number: Int) throws(SocketBondFileError) -> Entry {
        func fail(_ reason: String) -> SocketBondFileError { .malformed(path: path, line: number, reason: reason) }
        let fields = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
        guard fields.count == 4, !fields[3].isEmpty else { throw fail("expected ediv, rand, key and a socket path") }
        guard let ediv = Hex.decode(fields[0]), ediv.count == 2 else { throw fail("ediv '\(fields[0].prefix(8))' is not 4 hex digits") }
        guard let rand = Hex.decode(fields[1]), rand.count == 8 else { throw fail("rand is not 16 hex digits") }
        guard let key = Hex.decode(fields[2]), key.count == 16 else { throw fail("key is not 32 hex digits") }
        return Entry(socketPath: String(fields[3]),
                     bond: SocketBond(ediv: SocketPairingResponder.littleEndian(ediv), rand: SocketPairingResponder.littleEndian(rand), longTermKey: key))
    }

    private func write(_ entries: [Entry]) throws(SocketBondFileError) {
        var text = "# BandKit bonds made on simulator socket links. Secret: keep mode 0600.\n# ediv rand long-term-key socket-path\n"
        for entry in entries {
            text += [Hex.encode(SocketSecurityPDU.littleEndian(entry.bond.ediv)), Hex.encode(SocketSecurityPDU.littleEndian(entry.bond.rand)),
                     Hex.encode(entry.bond.longTermKey), entry.socketPath].joined(separator: " ") + "\n"
        }
        if case .failure(let error) = system.replaceFile(at: path, with: Array(text.utf8), mode: 0o600) { throw .system(error) }
    }

    private func whileLocked(_ body: () throws(SocketBondFileError) -> Void) throws(SocketBondFileError) {
        do throws(LockedFileError<SocketBondFileError>) {
            try system.withExclusiveLock(path + ".lock", body)
        } catch {
            switch error {
            case .lock(let failure): throw .system(failure)
            case .body(let failure): throw failure
            }
        }
    }
}

public enum SocketBondFileError: Error, Equatable, Sendable, CustomStringConvertible {
    case system(FileError)
    case malformed(path: String, line: Int, reason: String)

    public var description: String {
        switch self {
        case .system(let error): "\(error)"
        case .malformed(let path, let line, let reason): "\(path):\(line): \(reason)"
        }
    }
}
