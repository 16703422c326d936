import CSQLite
import Foundation
import Synchronization

/// A SQLite VFS that simulates a power cut: it passes every call through to the default `unix`
/// VFS and, for the files under a tracked directory, remembers what the last `fsync` made
/// durable. ``powerCut(into:)`` writes that durable image of each file — every write not yet
/// fsynced dropped, every file never fsynced absent — into another directory, as the disk would
/// hold it if the power failed at that instant.
///
/// The model is the pessimistic one POSIX allows: a write reaches the platter only through an
/// fsync of its file (SQLite's unix VFS fsyncs the directory on a new WAL's or journal's first
/// sync, so a synced file is taken to exist). The shared-memory index (`-shm`) is not a disk
/// file to SQLite: it is rebuilt from the WAL on open, so it is left out of the image.
///
/// Installed as the process's default VFS (the store opens with the default), once; files
/// outside the tracked directory pass straight through, so other tests in the process are
/// unaffected.
final class PowerLossVFS: @unchecked Sendable {
    static let shared = PowerLossVFS()

    private struct State {
        var trackedDirectory: String?
        var openPaths: [Int: String] = [:]
        /// Open files that were under the tracked directory when opened.
        var trackedIDs: Set<Int> = []
        var nextID = 1
        var durable: [String: [UInt8]] = [:]
        var syncs = 0
        /// Writes to files under this directory fail with SQLITE_FULL while it is set.
        var fullDirectory: String?
    }

    private let state = Mutex(State())
    private static let installation = Mutex(false)

    /// Registers the shim as the default VFS (idempotent) and returns it.
    static func install() -> PowerLossVFS {
        installation.withLock { installed in
            guard !installed else { return }
            installShim()
            installed = true
        }
        return shared
    }

    /// From now on, files under `directory` are tracked (earlier durable images are forgotten).
    func track(directory: String) {
        state.withLock { state in
            state.trackedDirectory = directory.hasSuffix("/") ? directory : directory + "/"
            state.durable = [:]
            state.syncs = 0
        }
    }

    func stopTracking() {
        state.withLock { state in
            state.trackedDirectory = nil
            state.durable = [:]
        }
    }

    /// From now on, every write to a file under `directory` fails with SQLITE_FULL, as SQLite's
    /// unix VFS reports a write the disk had no room for (ENOSPC); nil frees the space again.
    /// Independent of ``track(directory:)``. Files must be opened after ``install()``.
    func diskFull(under directory: String?) {
        state.withLock { $0.fullDirectory = directory.map { $0.hasSuffix("/") ? $0 : $0 + "/" } }
    }

    /// fsyncs of tracked files so far.
    var syncCount: Int { state.withLock { $0.syncs } }

    /// Writes the durable image of every tracked file into `directory` (same file names).
    /// Returns the names written.
    @discardableResult
    func powerCut(into directory: String) throws -> [String] {
        let images = state.withLock { $0.durable }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var names: [String] = []
        for (path, bytes) in images.sorted(by: { $0.key < $1.key }) {
            let name = (path as NSString).lastPathComponent
            let image = directory + "/" + name
            try Data(bytes).write(to: URL(fileURLWithPath: image))
            // A power cut keeps the file's mode: the store's files are private (0600), and the
            // store refuses to open one that others may read.
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: image)
            names.append(name)
        }
        return names
    }

    // MARK: Bookkeeping called from the C callbacks

    fileprivate func open(path: String?) -> Int {
        state.withLock { state in
            guard let path, !path.hasSuffix("-shm") else { return 0 }
            // Every file gets an id (``diskFull(under:)`` may name its directory later); only
            // tracked ones get durable images (``synced(id:)``).
            let id = state.nextID
            state.nextID += 1
            state.openPaths[id] = path
            if let tracked = state.trackedDirectory, path.hasPrefix(tracked) { state.trackedIDs.insert(id) }
            return id
        }
    }

    /// Whether a write to the file `id` must fail for want of space.
    fileprivate func isFull(id: Int) -> Bool {
        guard id != 0 else { return false }
        return state.withLock { state in
            guard let full = state.fullDirectory, let path = state.openPaths[id] else { return false }
            return path.hasPrefix(full)
        }
    }

    fileprivate func close(id: Int) {
        guard id != 0 else { return }
        state.withLock { state in
            state.openPaths[id] = nil
            state.trackedIDs.remove(id)
        }
    }

    /// After a successful fsync: the file's whole current content is durable.
    fileprivate func synced(id: Int) {
        guard id != 0, let path = state.withLock({ $0.trackedIDs.contains(id) ? $0.openPaths[id] : nil }) else { return }
        let bytes = FileManager.default.contents(atPath: path).map { [UInt8]($0) } ?? []
        state.withLock { state in
            state.durable[path] = bytes
            state.syncs += 1
        }
    }

    /// A deleted file is gone after the power cut too (SQLite syncs the directory on delete
    /// when it matters).
    fileprivate func deleted(path: String) {
        _ = state.withLock { $0.durable.removeValue(forKey: path) }
    }
}

// MARK: The VFS and its file methods (C callbacks, no captures)

/// The default VFS the shim forwards to, and the shim's own structures (allocated once, never freed).
nonisolated(unsafe) private var realVFS: UnsafeMutablePointer<sqlite3_vfs>!
nonisolated(unsafe) private var shimMethods: UnsafeMutablePointer<sqlite3_io_methods>!

/// A shim file: [methods pointer][tracking id][the real VFS's file].
private let realFileOffset = 16

private func real(_ file: UnsafeMutablePointer<sqlite3_file>?) -> UnsafeMutablePointer<sqlite3_file> {
    UnsafeMutableRawPointer(file!).advanced(by: realFileOffset).assumingMemoryBound(to: sqlite3_file.self)
}

private func trackingID(_ file: UnsafeMutablePointer<sqlite3_file>?) -> Int {
    UnsafeMutableRawPointer(file!).load(fromByteOffset: 8, as: Int.self)
}

private func methods(_ file: UnsafeMutablePointer<sqlite3_file>) -> sqlite3_io_methods {
    file.pointee.pMethods.pointee
}

private func installShim() {
    let base = sqlite3_vfs_find(nil)!
    realVFS = base
    let io = UnsafeMutablePointer<sqlite3_io_methods>.allocate(capacity: 1)
    io.initialize(to: sqlite3_io_methods(
        iVersion: 3,
        xClose: { file in
            let inner = real(file)
            let rc = methods(inner).xClose!(inner)
            PowerLossVFS.shared.close(id: trackingID(file))
            return rc
        },
        xRead: { file, buffer, amount, offset in let f = real(file); return methods(f).xRead!(f, buffer, amount, offset) },
        xWrite: { file, buffer, amount, offset in
            if PowerLossVFS.shared.isFull(id: trackingID(file)) { return SQLITE_FULL }
            let f = real(file)
            return methods(f).xWrite!(f, buffer, amount, offset)
        },
        xTruncate: { file, size in let f = real(file); return methods(f).xTruncate!(f, size) },
        xSync: { file, flags in
            let f = real(file)
            let rc = methods(f).xSync!(f, flags)
            if rc == SQLITE_OK { PowerLossVFS.shared.synced(id: trackingID(file)) }
            return rc
        },
        xFileSize: { file, size in let f = real(file); return methods(f).xFileSize!(f, size) },
        xLock: { file, level in let f = real(file); return methods(f).xLock!(f, level) },
        xUnlock: { file, level in let f = real(file); return methods(f).xUnlock!(f, level) },
        xCheckReservedLock: { file, out in let f = real(file); return methods(f).xCheckReservedLock!(f, out) },
        xFileControl: { file, op, argument in let f = real(file); return methods(f).xFileControl!(f, op, argument) },
        xSectorSize: { file in let f = real(file); return methods(f).xSectorSize!(f) },
        xDeviceCharacteristics: { file in let f = real(file); return methods(f).xDeviceCharacteristics!(f) },
        xShmMap: { file, page, size, extend, out in let f = real(file); return methods(f).xShmMap!(f, page, size, extend, out) },
        xShmLock: { file, offset, count, flags in let f = real(file); return methods(f).xShmLock!(f, offset, count, flags) },
        xShmBarrier: { file in let f = real(file); methods(f).xShmBarrier!(f) },
        xShmUnmap: { file, delete in let f = real(file); return methods(f).xShmUnmap!(f, delete) },
        xFetch: { file, offset, amount, out in let f = real(file); return methods(f).xFetch!(f, offset, amount, out) },
        xUnfetch: { file, offset, pointer in let f = real(file); return methods(f).xUnfetch!(f, offset, pointer) }))
    shimMethods = io

    let vfs = UnsafeMutablePointer<sqlite3_vfs>.allocate(capacity: 1)
    vfs.initialize(to: base.pointee)
    vfs.pointee.pNext = nil
    vfs.pointee.zName = UnsafePointer(strdup("bandkit-power-loss"))
    vfs.pointee.szOsFile = Int32(realFileOffset) + base.pointee.szOsFile
    vfs.pointee.xOpen = { _, name, file, flags, outFlags in
        UnsafeMutableRawPointer(file!).storeBytes(of: nil as UnsafePointer<sqlite3_io_methods>?, as: UnsafePointer<sqlite3_io_methods>?.self)
        let rc = realVFS.pointee.xOpen!(realVFS, name, real(file), flags, outFlags)
        guard rc == SQLITE_OK else { return rc }
        let id = PowerLossVFS.shared.open(path: name.map { String(cString: $0) })
        UnsafeMutableRawPointer(file!).storeBytes(of: id, toByteOffset: 8, as: Int.self)
        file!.pointee.pMethods = UnsafePointer(shimMethods)
        return rc
    }
    vfs.pointee.xDelete = { _, name, syncDirectory in
        let rc = realVFS.pointee.xDelete!(realVFS, name, syncDirectory)
        if rc == SQLITE_OK, let name { PowerLossVFS.shared.deleted(path: String(cString: name)) }
        return rc
    }
    sqlite3_vfs_register(vfs, 1)
}
