import BandKitSystem
import Foundation
import Synchronization
import Testing

/// ``SystemCalls/withExclusiveLock(_:_:)``: the lock is held exactly while the body runs, against
/// another open of the same file too, and every way out releases it.
@Suite struct FileLockTests {
    func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "bandkit-lock-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Tries the lock through a separate open without waiting: what another process would get.
    func someoneElseCanLock(_ path: String) throws -> Bool {
        let fd = open(path, O_RDWR | O_CLOEXEC)
        try #require(fd >= 0)
        defer { close(fd) }
        return SystemCalls.live.flock(fd, LOCK_EX | LOCK_NB) == 0
    }

    struct Refused: Error, Equatable {}

    @Test func theLockIsHeldWhileTheBodyRunsAndReleasedAfter() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let lockPath = directory + "/keys.lock"
        let heldInside = try SystemCalls.live.withExclusiveLock(lockPath) { () throws(Refused) -> Bool in
            (try? someoneElseCanLock(lockPath)) == false
        }
        #expect(heldInside, "another open of the lock file could take it while the body ran")
        #expect(try someoneElseCanLock(lockPath), "the lock outlived the body")
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: lockPath)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
    }

    @Test func aThrowingBodyReleasesTheLockAndItsErrorComesBack() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let lockPath = directory + "/keys.lock"
        do {
            try SystemCalls.live.withExclusiveLock(lockPath) { () throws(Refused) -> Void in throw Refused() }
            Issue.record("the body's error was lost")
        } catch {
            guard case .body(let inner) = error else { Issue.record("expected .body, got \(error)"); return }
            #expect(inner == Refused())
        }
        #expect(try someoneElseCanLock(lockPath))
    }

    @Test func aLockFileThatCannotBeOpenedNamesTheCallAndPath() throws {
        let lockPath = "/nonexistent-\(UUID().uuidString)/keys.lock"
        do {
            try SystemCalls.live.withExclusiveLock(lockPath) { () throws(Refused) in Issue.record("the body ran without a lock") }
        } catch {
            guard case .lock(let failure) = error else { Issue.record("expected .lock, got \(error)"); return }
            #expect(failure == FileError(call: "open", path: lockPath, errno: .noSuchFileOrDirectory))
            #expect(failure.description == "open \(lockPath) failed: No such file or directory (errno 2)")
        }
    }

    @Test func aLockWaitInterruptedBySignalWaitsAgain() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let attempts = Mutex(0)
        var calls = SystemCalls.live
        calls.flock = { fd, operation in
            let attempt = attempts.withLock { $0 += 1; return $0 }
            if attempt == 1 { errno = EINTR; return -1 }
            return SystemCalls.live.flock(fd, operation)
        }
        let ran = try calls.withExclusiveLock(directory + "/keys.lock") { () throws(Refused) in true }
        #expect(ran)
        #expect(attempts.withLock { $0 } == 2)
    }

    /// Two threads doing load–modify–replace under the lock never lose an update.
    @Test func updatesUnderTheLockFromManyThreadsAreAllKept() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/counter"
        try SystemCalls.live.replaceFile(at: path, with: Array("0".utf8), mode: 0o600).get()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<25 {
                        _ = try? SystemCalls.live.withExclusiveLock(path + ".lock") { () throws(Refused) in
                            let old = Int(String(decoding: (try? SystemCalls.live.readFile(path: path).get()) ?? [], as: UTF8.self)) ?? -1000
                            _ = SystemCalls.live.replaceFile(at: path, with: Array("\(old + 1)".utf8), mode: 0o600)
                        }
                    }
                }
            }
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "100")
    }
}
