import BandKitSystem
import Foundation
import Synchronization
import Testing

/// ``SystemCalls/replaceFile(at:with:mode:)``: the one atomic small-file write (keystore, LE
/// keys, flash state), checked call by call through a recording system-call table.
@Suite struct AtomicFileWriteTests {
    /// The live calls, each logged by name before it runs; `failing` makes the named call fail
    /// with `EIO` instead.
    final class Log: Sendable {
        let entries = Mutex<[String]>([])
    }

    final class Recorder: Sendable {
        let log = Log()
        let calls: SystemCalls

        init(failing: String? = nil) {
            var calls = SystemCalls.live
            let log = self.log
            @Sendable func note(_ entry: String) -> Bool {
                log.entries.withLock { $0.append(entry) }
                if let failing, entry.hasPrefix(failing + " ") || entry == failing {
                    errno = EIO
                    return false
                }
                return true
            }
            let live = SystemCalls.live
            calls.open = { path, flags, mode in
                let name = (String(cString: path) as NSString).lastPathComponent
                let kind = flags & O_DIRECTORY != 0 ? "directory" : "file"
                guard note("open \(kind) \(name) mode \(String(mode, radix: 8))") else { return -1 }
                return live.open(path, flags, mode)
            }
            calls.fchmod = { fd, mode in note("fchmod \(String(mode, radix: 8))") ? live.fchmod(fd, mode) : -1 }
            calls.write = { fd, bytes, count in note("write") ? live.write(fd, bytes, count) : -1 }
            calls.fsync = { fd in
                var status = stat()
                _ = fstat(fd, &status)
                let kind = status.st_mode & S_IFMT == S_IFDIR ? "directory" : "file"
                return note("fsync \(kind)") ? live.fsync(fd) : -1
            }
            calls.close = { fd in _ = note("close"); return live.close(fd) }
            calls.rename = { from, to in
                let names = [from, to].map { (String(cString: $0) as NSString).lastPathComponent }
                return note("rename \(names[0]) \(names[1])") ? live.rename(from, to) : -1
            }
            calls.unlink = { path in _ = note("unlink"); return live.unlink(path) }
            self.calls = calls
        }

        var entries: [String] { log.entries.withLock { $0 } }
    }

    func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "bandkit-atomic-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func modeIsSetBeforeWritingThenFsyncRenameAndTheDirectoryIsFsyncedLast() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/secret"
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o644)
        let recorder = Recorder()
        try recorder.calls.replaceFile(at: path, with: Array("new".utf8), mode: 0o600).get()

        let temporary = "secret.tmp.\(getpid())"
        #expect(recorder.entries == [
            "open file \(temporary) mode 600", "fchmod 600", "write", "fsync file", "close",
            "rename \(temporary) secret", "open directory \((directory as NSString).lastPathComponent) mode 0",
            "fsync directory", "close",
        ])
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "new")
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode == 0o600, "the replaced file has the new mode, not the old file's 0644")
        #expect(!FileManager.default.fileExists(atPath: directory + "/" + temporary))
    }

    @Test(arguments: ["fchmod", "write", "fsync file", "rename"])
    func aFailureBeforeTheRenameLeavesTheOldFileAndNoTemporary(failing call: String) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/secret"
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        let recorder = Recorder(failing: call)
        let result = recorder.calls.replaceFile(at: path, with: Array("new".utf8), mode: 0o600)
        guard case .failure(let error) = result else {
            Issue.record("\(call) failed but the write succeeded")
            return
        }
        #expect(error.call == call.split(separator: " ")[0].description)
        #expect(error.errno == .ioError)
        #expect(error.description.contains("secret"), "the message names the file: \(error)")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "old")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["secret"], "no temporary file is left")
        if call != "rename" { #expect(!recorder.entries.contains { $0.hasPrefix("rename") }) }
    }

    @Test func aFailedDirectoryFsyncIsReported() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let recorder = Recorder(failing: "fsync directory")
        let result = recorder.calls.replaceFile(at: directory + "/secret", with: [1, 2, 3], mode: 0o600)
        guard case .failure(let error) = result else {
            Issue.record("the directory fsync failed but the write succeeded")
            return
        }
        #expect(error == FileError(call: "fsync", path: directory, errno: .ioError))
    }

    @Test func theDirectoryOfAPath() {
        #expect(FilePaths.directory(of: "/a/b/c") == "/a/b")
        #expect(FilePaths.directory(of: "/a/b/c/") == "/a/b")
        #expect(FilePaths.directory(of: "/c") == "/")
        #expect(FilePaths.directory(of: "c") == "")
        #expect(FilePaths.directory(of: "a/c") == "a")
        #expect(FilePaths.directory(of: "/") == "/")
    }
}
