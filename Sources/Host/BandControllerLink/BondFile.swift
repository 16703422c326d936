import BandKitSystem
import BandLEHost
import BandWire

/// The Linux band's bonds (``LEBondStore``) in a small text file, replaced atomically on every
/// change so a crash leaves the old bonds or the new ones, and a bond reported saved survives
/// a restart: the re-connecting central encrypts with it and is not asked for a passkey again.
///
/// One line per bond, at most ``capacity``:
///
/// ```
/// bandkit-le-bonds 1
/// 11:22:33:44:55:66/random 00112233445566778899aabbccddeeff authenticated
/// ```
///
/// (the key as the controller takes it, least significant octet first; `authenticated` or
/// `unauthenticated`). Without a path the bonds last while the process runs.
public struct BondFile: LEBondStore {
    public static let capacity = 16
    static let header = "bandkit-le-bonds 1"
    public let path: String?
    public private(set) var bonds: [LEBond]
    /// Why the last save failed (nil after a good one), for the owner's log.
    public private(set) var lastError: FileError?

    /// Reads the bonds at `path` (none when the file does not exist yet).
    public static func load(path: String?) -> Result<BondFile, BondFileError> {
        guard let path else { return .success(BondFile(path: nil, bonds: [])) }
        let bytes: [UInt8]
        switch SystemCalls.live.readFile(path: path) {
        case .success(let read): bytes = read
        case .failure(let error) where error.rawValue == 2: return .success(BondFile(path: path, bonds: []))  // ENOENT
        case .failure(let error): return .failure(BondFileError(path: path, line: 0, reason: "cannot read: \(error)"))
        }
        return parse(bytes, path: path).map { BondFile(path: path, bonds: $0) }
    }

    /// The bonds a file's bytes hold, or why they cannot be read (the line, 1-based, naming
    /// `path`): the whole of ``load(path:)`` but the reading, so the fuzzer (fuzz/bondfile)
    /// drives it on bytes. At most ``capacity`` bonds, one per peer (a later line replaces
    /// an earlier one's).
    package static func parse(_ bytes: [UInt8], path: String) -> Result<[LEBond], BondFileError> {
        guard let text = String(validating: bytes, as: UTF8.self) else { return .failure(BondFileError(path: path, line: 0, reason: "not UTF-8 text")) }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.first.map(String.init) == header else {
            return .failure(BondFileError(path: path, line: 1, reason: "expected '\(header)'"))
        }
        var bonds: [LEBond] = []
        for (index, line) in lines.enumerated().dropFirst() where !line.isEmpty {
            let fields = line.split(separator: " ")
            guard fields.count == 3 else { return .failure(BondFileError(path: path, line: index + 1, reason: "expected ADDRESS KEY authenticated|unauthenticated")) }
            guard let peer = try? LEAddress(String(fields[0])) else {
                return .failure(BondFileError(path: path, line: index + 1, reason: "the first field is not an address such as 11:22:33:44:55:66/random"))
            }
            guard let keyBytes = Hex.decode(fields[1]), keyBytes.count == 16 else {
                return .failure(BondFileError(path: path, line: index + 1, reason: "the key must be 32 hex digits"))
            }
            let key = FixedBytes<16>(keyBytes)
            guard fields[2] == "authenticated" || fields[2] == "unauthenticated" else {
                return .failure(BondFileError(path: path, line: index + 1, reason: "expected authenticated or unauthenticated"))
            }
            guard bonds.count < capacity else { return .failure(BondFileError(path: path, line: index + 1, reason: "more than \(capacity) bonds")) }
            bonds.removeAll { $0.peer == peer }
            bonds.append(LEBond(peer: peer, longTermKey: key, authenticated: fields[2] == "authenticated"))
        }
        return .success(bonds)
    }

    init(path: String?, bonds: [LEBond]) {
        self.path = path
        self.bonds = bonds
    }

    public func bond(with peer: LEAddress) -> LEBond? { bonds.first { $0.peer == peer } }

    /// Keeps `bond` in place of the peer's old one; false when the file is full of other peers'
    /// bonds or could not be written (then nothing changed, in memory either).
    public mutating func save(_ bond: LEBond) -> Bool {
        var updated = bonds.filter { $0.peer != bond.peer }
        guard updated.count < Self.capacity else { return false }
        updated.append(bond)
        if let path {
            if case .failure(let error) = SystemCalls.live.replaceFile(at: path, with: Self.encode(updated), mode: 0o600) {
                lastError = error
                return false
            }
        }
        lastError = nil
        bonds = updated
        return true
    }

    /// The file's bytes for `bonds`, as ``parse(_:path:)`` reads them.
    package static func encode(_ bonds: [LEBond]) -> [UInt8] {
        Array((([header] + bonds.map(line)).joined(separator: "\n") + "\n").utf8)
    }

    static func line(_ bond: LEBond) -> String {
        var key: [UInt8] = []
        for index in 0..<16 { key.append(bond.longTermKey[index]) }
        return "\(bond.peer) \(Hex.encode(key)) \(bond.authenticated ? "authenticated" : "unauthenticated")"
    }
}

/// A bond file that cannot be read: which, the line, and why.
public struct BondFileError: Error, Equatable, Sendable, CustomStringConvertible {
    public var path: String
    public var line: Int
    public var reason: String
    public var description: String { line > 0 ? "\(path):\(line): \(reason)" : "\(path): \(reason)" }
}
