import BandKitSystem
import BandWire
#if canImport(Glibc)
import Glibc
#endif

/// A session's write-ahead journal: what its live stream received and the store has not yet
/// taken, kept on disk as it arrives, so a reader killed at any moment (SIGKILL, a crash, the
/// OOM killer) loses no reading. The next session of the band moves it into the band's
/// ``LiveSpool`` (``drain()``), whose replay writes it through the live write path.
///
/// The same format as the spool (``SpoolFile``), beside it: `<spool path>.journal`, mode 0600.
///
/// - After each live notification, what it changed — the open minute as it stands now, a step
///   gap, a new battery level — is appended with **one `write()`** (``append(_:)``), never
///   fsynced: the kernel's page cache keeps it when the process dies.
/// - Whenever the session has put what it received somewhere durable (a live write committed,
///   or minutes appended to the spool), the journal is **replaced** by what the stream still
///   holds uncommitted, usually only the open minute (``replace(with:)``): written to a
///   temporary file, fsynced, renamed over the journal (`SystemCalls.replaceFile`),
///   so a kill at any point leaves the old journal or the new one, never neither.
///
/// **What survives what.** A process kill loses nothing received. A power cut loses at most what
/// arrived since the last replacement: the session's live-write interval (5 s by default).
/// Fsyncing every reading would cost a disk flush per reading per device; once per live write
/// is the cadence the store's own commits already have.
///
/// **Idempotent.** A minute's later entries supersede its earlier ones (the same minute and part,
/// more readings), so ``drain()`` keeps the last of each; the replay makes a part already
/// stored replace itself, so a journal replayed twice, or after its minutes were committed,
/// counts nothing twice. **Bounded:** past ``compactionSize`` bytes between replacements (a
/// device notifying very fast) the journal is replaced by its latest entries at once.
///
/// **One writer.** From its first use until ``close()`` the journal holds an exclusive,
/// non-blocking `flock` on `<journal>.lock` (the journal itself is renamed over, so it cannot
/// carry the lock). A second reader of the same band by mistake is refused with an error naming
/// the lock instead of moving, renaming or appending to a journal whose session is still
/// running; a killed reader's lock goes with it.
///
/// **No allocation per reading.** Every append and replacement encodes into one buffer the
/// journal owns, grown only when a batch is larger than any before.
public final class LiveJournal {
    public let path: String
    /// The band's spool, which the next session's ``drain()`` moves the journal into.
    public let spool: LiveSpool
    /// Bytes appended since the last replacement that make the journal compact itself.
    public var compactionSize = 256 << 10
    let system = SystemCalls.live
    private var descriptor: Int32?
    /// `<journal>.lock`, flocked while the journal is in use.
    private var lockDescriptor: Int32?
    /// What every append and replacement is encoded into.
    private var encodeBuffer = UnsafeMutableRawBufferPointer.allocate(
        byteCount: SpoolFile.header.count + 4 * (SpoolFile.recordOverhead + SpoolEntry.maximumPayloadSize), alignment: 1)
    /// Bytes in the file (header included) since it was last replaced or opened.
    private var size = 0
    /// What the journal holds, latest per key: the entries a compaction keeps.
    private var latest: [SpoolEntry] = []
    /// Whether anything was appended since the last replacement.
    public private(set) var isDirty = false

    /// The journal of `spool`'s band, beside it.
    public init(beside spool: LiveSpool) {
        self.spool = spool
        path = spool.path + ".journal"
    }

    deinit {
        close()
        encodeBuffer.deallocate()
    }

    /// The lock file that keeps a second reader of the band away from the journal.
    public var lockPath: String { path + ".lock" }

    /// Closes the journal's file and releases its lock (the session is over); the file stays
    /// for the next session. A later use takes the lock again.
    public func close() {
        closeDescriptor()
        if let lockDescriptor { _ = system.close(descriptor: lockDescriptor) }
        lockDescriptor = nil
    }

    /// Appends `entries` with one write; opens (or creates) the file on first use.
    public func append(_ entries: [SpoolEntry]) throws(LiveSpool.SpoolError) {
        guard !entries.isEmpty else { return }
        for entry in entries { Self.keepLatest(entry, in: &latest) }
        if size > compactionSize {
            try replace(with: latest)
            return
        }
        let fd = try openForAppending()
        let bytes = encode(entries, withHeader: size == 0)
        if case .failure(let error) = system.writeAll(fd, bytes) {
            closeDescriptor()
            throw LiveSpool.SpoolError(path: path, reason: "cannot append: \(error)")
        }
        size += bytes.count
        isDirty = true
    }

    /// Replaces the journal by `entries` (what is still uncommitted) atomically and durably, or
    /// removes it when there are none.
    public func replace(with entries: [SpoolEntry]) throws(LiveSpool.SpoolError) {
        var kept: [SpoolEntry] = []
        for entry in entries { Self.keepLatest(entry, in: &kept) }
        // Nothing arrived since the file last held exactly these: it stays as it is.
        if !isDirty, kept == latest, size > 0 || kept.isEmpty { return }
        try holdLock()
        closeDescriptor()
        latest = kept
        isDirty = false
        guard !latest.isEmpty else {
            size = 0
            switch system.unlink(path: path) {
            case .success: return
            case .failure(let error) where error == .noSuchFileOrDirectory: return
            case .failure(let error): throw LiveSpool.SpoolError(path: path, reason: "cannot remove: \(error)")
            }
        }
        let bytes = encode(latest, withHeader: true)
        if case .failure(let error) = system.replaceFile(at: path, withContentsOf: bytes, mode: 0o600) {
            size = 0
            throw LiveSpool.SpoolError(path: path, reason: "cannot replace: \(error)")
        }
        size = bytes.count
    }

    /// Moves what an earlier session left in the journal (the process was killed) into the
    /// spool, the latest entry of each minute, then removes the journal. Returns what was moved
    /// and what the spool was too full to take (counted, as the spool counts its own).
    public func drain() throws(LiveSpool.SpoolError) -> (moved: SpoolFile.Contents, appended: LiveSpool.Appended) {
        closeDescriptor()
        // No journal (the usual case): nothing to move, and no lock file made for it.
        if case .failure(let error) = system.fileStatus(path: path), error == .noSuchFileOrDirectory {
            return (SpoolFile.Contents(), LiveSpool.Appended())
        }
        try holdLock()
        let bytes: [UInt8]
        switch system.readFile(path: path) {
        case .success(let read): bytes = read
        case .failure(let error) where error == .noSuchFileOrDirectory: return (SpoolFile.Contents(), LiveSpool.Appended())
        case .failure(let error): throw LiveSpool.SpoolError(path: path, reason: "cannot read: \(error)")
        }
        var contents = SpoolFile.Contents()
        if !bytes.isEmpty {
            do { contents = try SpoolFile.decode(bytes) } catch { throw LiveSpool.SpoolError(path: path, reason: "\(error)") }
        }
        var kept: [SpoolEntry] = []
        for entry in contents.entries { Self.keepLatest(entry, in: &kept) }
        contents.entries = kept
        let appended = try spool.append(kept)
        latest = []
        size = 0
        isDirty = false
        switch system.unlink(path: path) {
        case .success: break
        case .failure(let error) where error == .noSuchFileOrDirectory: break
        case .failure(let error): throw LiveSpool.SpoolError(path: path, reason: "cannot remove after moving it to the spool: \(error)")
        }
        return (contents, appended)
    }

    /// Adds `entry` to `entries`, replacing the one it supersedes: the same minute and part (a
    /// later state of it), the same step gap, or any battery level.
    static func keepLatest(_ entry: SpoolEntry, in entries: inout [SpoolEntry]) {
        let index = entries.firstIndex { kept in
            switch (kept, entry) {
            case (.minute(let old), .minute(let new)): old.start == new.start && old.part == new.part
            case (.stepGap(let old), .stepGap(let new)): old.to == new.to
            case (.battery, .battery): true
            default: false
            }
        }
        if let index { entries[index] = entry } else { entries.append(entry) }
    }

    /// `entries` as the journal's bytes (after the header when `withHeader`), in ``encodeBuffer``:
    /// valid until the next encode.
    private func encode(_ entries: [SpoolEntry], withHeader: Bool) -> UnsafeRawBufferPointer {
        let needed = SpoolFile.header.count + entries.count * (SpoolFile.recordOverhead + SpoolEntry.maximumPayloadSize)
        if needed > encodeBuffer.count {
            encodeBuffer.deallocate()
            encodeBuffer = .allocate(byteCount: Swift.max(needed, 2 * encodeBuffer.count), alignment: 1)
        }
        var writer = ByteWriter(encodeBuffer)
        if withHeader { writer.writeBytes(SpoolFile.header) }
        for entry in entries { SpoolFile.encode(entry, into: &writer) }
        return writer.written
    }

    /// Takes the journal's lock if this journal does not hold it yet (making the directory).
    private func holdLock() throws(LiveSpool.SpoolError) {
        guard lockDescriptor == nil else { return }
        try spool.makeDirectories(FilePaths.directory(of: path))
        let fd: Int32
        switch system.open(path: lockPath, flags: O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, mode: 0o600) {
        case .success(let opened): fd = opened
        case .failure(let error): throw LiveSpool.SpoolError(path: lockPath, reason: "cannot open the journal's lock: \(error)")
        }
        if case .failure(let error) = system.lockFile(fd, LOCK_EX | LOCK_NB) {
            _ = system.close(descriptor: fd)
            throw LiveSpool.SpoolError(path: lockPath, reason: error == .wouldBlock
                ? "another reader of this band holds the journal's lock; its journal is left to it"
                : "cannot lock the journal: \(error)")
        }
        lockDescriptor = fd
    }

    private func openForAppending() throws(LiveSpool.SpoolError) -> Int32 {
        if let descriptor { return descriptor }
        try holdLock()
        let fd: Int32
        switch system.open(path: path, flags: O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, mode: 0o600) {
        case .success(let opened): fd = opened
        case .failure(let error):
            throw LiveSpool.SpoolError(path: path, reason: "cannot open for appending: \(error)")
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            _ = system.close(descriptor: fd)
            throw LiveSpool.SpoolError(path: path, reason: "cannot stat: \(Errno(rawValue: errno))")
        }
        size = Int(info.st_size)
        descriptor = fd
        return fd
    }

    private func closeDescriptor() {
        if let descriptor { _ = system.close(descriptor: descriptor) }
        descriptor = nil
    }
}
