import BandKitSystem
import BandLink
import BandWire
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A gateway's local spool for one band: live minutes (and step gaps, battery levels) received
/// while the store was unreachable, kept on disk until the store takes them.
///
/// One append-only file per band and store (``SpoolFile`` format: header, then CRC-checked
/// records), mode 0600 in a 0700 directory under the reader's state directory
/// (`$XDG_STATE_HOME/bandkit/spool`, else `~/.local/state/bandkit/spool`). Every ``append(_:)``
/// is fsynced before it returns, so what the session was told is kept survives a crash or a
/// power cut. ``replay(_:)`` hands everything to the store's write path under the file's lock
/// and removes the file only after that write committed: a crash in between replays the same
/// entries again, which the write path makes a no-op (each minute's part replaces itself, see
/// ``SampleWriter/writeLive(_:batteryPercent:batteryTime:stepGaps:)``).
///
/// **Bounded.** The file never grows past ``capacity`` (4 MiB by default: about 55,000 minutes,
/// five weeks of one band). When it is full, new entries are not kept: they are counted
/// (``Appended/dropped``) and the session reports them, and the oldest spooled minutes stay —
/// for a BandKit band the minutes the spool cannot take are still in the band's own history,
/// which the next sync after the store returns stores and acknowledges.
public final class LiveSpool {
    public let path: String
    /// Largest file size, header included.
    public var capacity: Int
    let system: SystemCalls

    public init(path: String, capacity: Int = 4 << 20) {
        self.path = path
        self.capacity = capacity
        self.system = .live
    }

    /// What an append kept.
    public struct Appended: Equatable, Sendable {
        public var kept = 0
        /// Entries not kept because the spool was full.
        public var dropped = 0
        /// Of those, live minutes.
        public var droppedMinutes = 0

        public init(kept: Int = 0, dropped: Int = 0, droppedMinutes: Int = 0) {
            self.kept = kept
            self.dropped = dropped
            self.droppedMinutes = droppedMinutes
        }
    }

    /// A spool file operation failed (the session reports it; nothing was acknowledged).
    public struct SpoolError: Error, Equatable, Sendable, CustomStringConvertible {
        public var path: String
        public var reason: String

        public init(path: String, reason: String) {
            self.path = path
            self.reason = reason
        }

        public var description: String { "spool \(path): \(reason)" }
    }

    // MARK: Location

    /// The spool directory: `$XDG_STATE_HOME/bandkit/spool`, else `$HOME/.local/state/bandkit/spool`.
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/bandkit/spool" }
        let home = environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
        return home + "/.local/state/bandkit/spool"
    }

    /// `<band>-<store>.spool`: the band's keystore key with anything but letters and digits
    /// made `_`, and a 64-bit FNV-1a hash of the store's redacted location, so two readers of
    /// one band writing to different stores keep separate spools.
    public static func fileName(band: String, store: String) -> String {
        let name = String(band.unicodeScalars.map { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) ? Character($0) : "_" })
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in store.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return name + "-" + String(repeating: "0", count: 16 - hex.count) + hex + ".spool"
    }

    // MARK: Reading and writing

    /// Appends `entries` in order, as many as fit, and fsyncs the file.
    public func append(_ entries: [SpoolEntry]) throws(SpoolError) -> Appended {
        var result = Appended()
        guard !entries.isEmpty else { return result }
        try locked { () throws(SpoolError) in
            try makeDirectories(FilePaths.directory(of: path))
            let fd: Int32
            switch system.open(path: path, flags: O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, mode: 0o600) {
            case .success(let opened): fd = opened
            case .failure(let error): throw SpoolError(path: path, reason: "cannot open for appending: \(error)")
            }
            defer { _ = system.close(descriptor: fd) }
            var info = stat()
            guard fstat(fd, &info) == 0 else { throw SpoolError(path: path, reason: "cannot stat: \(Errno(rawValue: errno))") }
            let created = info.st_size == 0
            var size = Int(info.st_size)
            var bytes: [UInt8] = created ? SpoolFile.header : []
            size += bytes.count
            for entry in entries {
                let record = SpoolFile.encode(entry)
                guard size + record.count <= capacity else {
                    result.dropped += 1
                    if case .minute = entry { result.droppedMinutes += 1 }
                    continue
                }
                bytes += record
                size += record.count
                result.kept += 1
            }
            guard !bytes.isEmpty else { return }
            if case .failure(let error) = bytes.withUnsafeBytes({ system.writeAll(fd, $0) }) {
                throw SpoolError(path: path, reason: "cannot append: \(error)")
            }
            if case .failure(let error) = system.synchronize(fd) { throw SpoolError(path: path, reason: "cannot fsync: \(error)") }
            if created, case .failure(let error) = system.synchronizeDirectory(of: path) {
                throw SpoolError(path: path, reason: "\(error)")
            }
        }
        return result
    }

    /// What the spool holds now (empty when there is no file).
    public func load() throws(SpoolError) -> SpoolFile.Contents {
        let bytes: [UInt8]
        switch system.readFile(path: path) {
        case .success(let read): bytes = read
        case .failure(let error) where error == .noSuchFileOrDirectory: return SpoolFile.Contents()
        case .failure(let error): throw SpoolError(path: path, reason: "cannot read: \(error)")
        }
        if bytes.isEmpty { return SpoolFile.Contents() }   // created, header not yet written
        do { return try SpoolFile.decode(bytes) } catch { throw SpoolError(path: path, reason: "\(error)") }
    }

    /// Under the spool's lock: hands what the spool holds to `store` (the store's write path),
    /// then removes the file once `store` returned. When `store` throws, the file stays as it
    /// was and the error is rethrown. Returns what was replayed.
    public func replay<Failure: Error>(_ store: (SpoolFile.Contents) throws(Failure) -> Void) throws(ReplayError<Failure>) -> SpoolFile.Contents {
        var replayed = SpoolFile.Contents()
        try locked { () throws(ReplayError<Failure>) in
            let contents: SpoolFile.Contents
            do throws(SpoolError) { contents = try load() } catch { throw .spool(error) }
            guard !contents.entries.isEmpty || !contents.isClean else { return }
            do throws(Failure) { try store(contents) } catch { throw .store(error) }
            switch system.unlink(path: path) {
            case .success: break
            case .failure(let error) where error == .noSuchFileOrDirectory: break
            case .failure(let error): throw .spool(SpoolError(path: path, reason: "cannot remove after replay: \(error)"))
            }
            replayed = contents
        }
        return replayed
    }

    /// ``replay(_:)`` failed: reading or removing the spool, or the store's write.
    public enum ReplayError<Failure: Error>: Error {
        case spool(SpoolError)
        case store(Failure)
    }

    // MARK: Steps

    private func locked<Failure: Error>(_ body: () throws(Failure) -> Void) throws(Failure) {
        let lockPath = path + ".lock"
        // The directory must exist for the lock file; when it cannot be made, the body's own
        // open reports why.
        if case .failure = system.fileStatus(path: FilePaths.directory(of: path)) {
            _ = try? makeDirectories(FilePaths.directory(of: path))
        }
        do {
            try system.withExclusiveLock(lockPath, body)
        } catch {
            switch error {
            case .body(let failure): throw failure
            case .lock:
                // Without the lock file (a read-only state directory) work unlocked: one reader
                // per band is the rule, the lock only guards against a second by mistake.
                try body()
            }
        }
    }

    func makeDirectories(_ directory: String) throws(SpoolError) {
        var missing: [String] = []
        var current = directory
        while !current.isEmpty, current != "/", case .failure = system.fileStatus(path: current) {
            missing.append(current)
            current = FilePaths.directory(of: current)
        }
        for component in missing.reversed() {
            switch system.makeDirectory(path: component, mode: 0o700) {
            case .success: break
            case .failure(let error) where error == .fileExists: break
            case .failure(let error): throw SpoolError(path: path, reason: "cannot create directory \(component): \(error)")
            }
        }
    }
}
