import BandKitSystem
import BandLink
import BandWire
import FoundationEssentials
import HealthModel
import HealthStore
#if canImport(Glibc)
import Glibc
#endif

/// The bands this host has paired with, and the secret each shares with us.
///
/// One JSON file, `$XDG_CONFIG_HOME/bandkit/keys.json` (`~/.config/bandkit/keys.json` when the
/// variable is unset), mode 0600 in a 0700 directory. Written whole through
/// `SystemCalls/replaceFile(at:with:mode:)` (temporary file set to 0600 before a byte is
/// written, fsynced, renamed over the old one, directory fsynced), so a crash or power cut leaves
/// either the old or the new file, never half of one and never a moment where the key is
/// world-readable.
/// A file readable by group or others is refused, as ssh refuses such a private key. Changes
/// (``save(_:)``, ``remove(_:)``) hold an exclusive `flock` on `keys.json.lock` from load to
/// rename, so concurrent `band pair` runs each keep their key.
public struct Keystore: Sendable {
    public let path: String
    /// The system calls its writes go through (tests replace some to script failures).
    let system: SystemCalls

    public init(path: String) { self.init(path: path, system: .live) }

    init(path: String, system: SystemCalls) {
        self.path = path
        self.system = system
    }

    /// The directory holding the file (other per-host secrets go beside it).
    public var directory: String { FilePaths.directory(of: path) }

    /// The default location, from the environment.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            return xdg + "/bandkit/keys.json"
        }
        let home = environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
        return home + "/.config/bandkit/keys.json"
    }

    /// Every paired band, ordered by address.
    public func load() throws(KeystoreError) -> [PairedBand] {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT { return [] }
            throw KeystoreError(path: path, reason: "cannot stat: \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw KeystoreError(path: path, reason: "is accessible by group or others (mode \(String(info.st_mode & 0o777, radix: 8))); run chmod 600 on it")
        }
        return try Self.decode(readFile(), path: path)
    }

    /// The bands a keystore file's bytes hold, ordered by address; `path` only names the file in
    /// errors. Pure, so the fuzzer (fuzz/keystore) drives it without touching the disk.
    public static func decode(_ data: Data, path: String) throws(KeystoreError) -> [PairedBand] {
        do {
            let file = try JSONDecoder().decode(KeystoreFile.self, from: data)
            guard file.version == KeystoreFile.currentVersion else {
                throw KeystoreError(path: path, reason: "version \(file.version) is not the supported \(KeystoreFile.currentVersion)")
            }
            return file.bands.sorted { $0.address < $1.address }
        } catch let error as KeystoreError {
            throw error
        } catch {
            // The decoder does not say where the syntax breaks; a hand-edited file needs the place.
            if let place = JSONSyntaxLocation.firstError(in: [UInt8](data)) {
                throw KeystoreError(path: path, reason: "is not valid JSON at \(place)")
            }
            throw KeystoreError(path: path, reason: "is not a valid keystore: \(error)")
        }
    }

    /// The file's bytes for `bands` (sorted by address, pretty-printed, keys sorted).
    public static func encode(_ bands: [PairedBand], path: String) throws(KeystoreError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            return try encoder.encode(KeystoreFile(version: KeystoreFile.currentVersion, bands: bands.sorted { $0.address < $1.address }))
        } catch {
            throw KeystoreError(path: path, reason: "cannot encode: \(error)")
        }
    }

    public func band(_ address: String) throws(KeystoreError) -> PairedBand? {
        try load().first { $0.address == address }
    }

    /// Adds or replaces the entry for `band.address`.
    public func save(_ band: PairedBand) throws(KeystoreError) {
        try whileLocked { () throws(KeystoreError) in
            var bands = try load().filter { $0.address != band.address }
            bands.append(band)
            try write(bands)
        }
    }

    /// Removes a band; returns whether it was there.
    @discardableResult
    public func remove(_ address: String) throws(KeystoreError) -> Bool {
        try whileLocked { () throws(KeystoreError) -> Bool in
            let bands = try load()
            let kept = bands.filter { $0.address != address }
            guard kept.count != bands.count else { return false }
            try write(kept)
            return true
        }
    }

    /// The lock file beside the keystore: `keys.json.lock`.
    public var lockPath: String { path + ".lock" }

    /// Runs a load–modify–write holding the exclusive lock on ``lockPath``
    /// (``SystemCalls/withExclusiveLock(_:_:)``), so two processes (`band pair` run twice at
    /// once) cannot both load the old file and the second rename drop the first one's key.
    private func whileLocked<T>(_ body: () throws(KeystoreError) -> T) throws(KeystoreError) -> T {
        try makeDirectory(directory)
        do throws(LockedFileError<KeystoreError>) {
            return try system.withExclusiveLock(lockPath, body)
        } catch {
            switch error {
            case .lock(let failure): throw KeystoreError(path: lockPath, reason: "cannot lock: \(failure)")
            case .body(let failure): throw failure
            }
        }
    }

    private func write(_ bands: [PairedBand]) throws(KeystoreError) {
        let data = try Self.encode(bands, path: path)
        if case .failure(let error) = system.replaceFile(at: path, with: [UInt8](data), mode: 0o600) {
            throw KeystoreError(path: path, reason: "cannot write: \(error)")
        }
    }

    private func readFile() throws(KeystoreError) -> Data {
        switch system.readFile(path: path) {
        case .success(let bytes): return Data(bytes)
        case .failure(let error): throw KeystoreError(path: path, reason: "cannot read: \(error.reason)")
        }
    }

    /// Creates the keystore's directory (and its parents, mode 0700) if missing, so secrets kept
    /// beside the keystore (`smp-keys`, `socket-bonds`) can be written before the keystore is.
    public func prepareDirectory() throws(KeystoreError) { try makeDirectory(directory) }

    private func makeDirectory(_ directory: String) throws(KeystoreError) {
        var components: [String] = []
        var current = directory
        while !current.isEmpty, current != "/", access(current, F_OK) != 0 {
            components.append(current)
            current = FilePaths.directory(of: current)
        }
        for component in components.reversed() {
            if mkdir(component, 0o700) != 0, errno != EEXIST {
                throw KeystoreError(path: component, reason: "cannot create directory: \(String(cString: strerror(errno)))")
            }
        }
    }
}

/// One paired band: its address, the shared key, and what it told us about itself.
public struct PairedBand: Codable, Equatable, Sendable {
    /// ``BandAddress/keystoreKey``.
    public var address: String
    /// The random identity this host gave itself when pairing with this band (the band files
    /// our key under it).
    public var readerID: UInt64
    /// The band's authentication key (hex in the file). Empty for a bond-only entry: a device
    /// that is not a BandKit band (an InfiniTime watch paired with its passkey) has no key
    /// exchange; the entry records that it was paired, so later links raise security and the
    /// kernel encrypts with the bond (the long-term key in `smp-keys`).
    public var key: [UInt8]
    public var device: BandDeviceInfo
    public var pairedAt: Date
    /// What GATT discovery showed the device to be when it was paired. Entries written before
    /// kinds were recorded read as ``BandKind/bandkit``: only a BandKit band could pair then.
    public var kind: BandKind
    /// The person the band's readings belong to (`band pair --person NAME`); nil is the store's
    /// default person, and is what entries written before people existed read as. A rename with
    /// `health people rename` must be followed by pairing again (the entry holds the name).
    public var person: String?

    public init(address: String, readerID: UInt64, key: [UInt8], device: BandDeviceInfo, pairedAt: Date, kind: BandKind = .bandkit,
                person: String? = nil) {
        self.kind = kind
        self.person = person
        self.address = address
        self.readerID = readerID
        self.key = key
        self.device = device
        self.pairedAt = pairedAt
    }

    /// A bond-only entry: paired at the link (SMP), no BandKit key.
    public var isBondOnly: Bool { key.isEmpty }

    enum CodingKeys: String, CodingKey { case address, readerID = "reader_id", key, device, pairedAt = "paired_at", kind, person }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        address = try container.decode(String.self, forKey: .address)
        let readerText = try container.decode(String.self, forKey: .readerID)
        guard let readerID = UInt64(readerText, radix: 16) else {
            throw DecodingError.dataCorruptedError(forKey: .readerID, in: container, debugDescription: "reader ID is not hex")
        }
        self.readerID = readerID
        let hex = try container.decode(String.self, forKey: .key)
        let kind = try container.decodeIfPresent(BandKind.self, forKey: .kind) ?? .bandkit
        // Only a BandKit band has a key; an empty one is a bond-only entry for another kind.
        guard let key = hex.isEmpty && kind != .bandkit ? [] : hexBytes(hex), kind != .bandkit || !key.isEmpty else {
            throw DecodingError.dataCorruptedError(forKey: .key, in: container, debugDescription: "key is not hex")
        }
        self.key = key
        device = try container.decode(BandDeviceInfo.self, forKey: .device)
        let stamp = try container.decode(String.self, forKey: .pairedAt)
        guard let date = TimeParsing.instant(stamp, defaultZone: .gmt) else {
            throw DecodingError.dataCorruptedError(forKey: .pairedAt, in: container, debugDescription: "not an ISO 8601 time")
        }
        pairedAt = date
        self.kind = kind
        person = try container.decodeIfPresent(String.self, forKey: .person)
        if let person, let problem = Person.problem(withName: person) {
            throw DecodingError.dataCorruptedError(forKey: .person, in: container, debugDescription: "person's name \(problem)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(address, forKey: .address)
        try container.encode(String(readerID, radix: 16), forKey: .readerID)
        try container.encode(Hex.encode(key), forKey: .key)
        try container.encode(device, forKey: .device)
        // Whole seconds, as the file has always held them.
        let seconds = Date(timeIntervalSince1970: pairedAt.timeIntervalSince1970.rounded(.down))
        try container.encode(TimeParsing.format(seconds, utcOffsetSeconds: 0), forKey: .pairedAt)
        try container.encode(kind, forKey: .kind)
        // Absent for the default person: a keystore written before people existed stays the same bytes.
        try container.encodeIfPresent(person, forKey: .person)
    }
}

private func hexBytes(_ text: String) -> [UInt8]? {
    let utf8 = Array(text.utf8)
    guard utf8.count % 2 == 0 else { return nil }
    var out: [UInt8] = []
    var index = 0
    while index < utf8.count {
        guard let byte = UInt8(String(decoding: utf8[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
        out.append(byte)
        index += 2
    }
    return out
}

struct KeystoreFile: Codable {
    static let currentVersion = 1
    var version: Int
    var bands: [PairedBand]
}

/// The keystore could not be read or written.
public struct KeystoreError: Error, Equatable, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "keystore \(path) \(reason)" }
}
