#if canImport(Glibc)
import Glibc
#endif
import BandKitSystem
import Foundation
import Testing

/// The directory a socket or a secret goes in: every missing level made private, what exists kept.
@Suite struct PrivateDirectoryTests {
    func temporary() -> String {
        let path = NSTemporaryDirectory() + "privdir-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        mkdir(path, 0o755)
        return path
    }

    func failure(_ result: Result<Void, PrivateDirectory.Failure>) -> String? {
        if case .failure(let failure) = result { return failure.description }
        return nil
    }

    func mode(_ path: String) -> mode_t? {
        var status = stat()
        return lstat(path, &status) == 0 ? status.st_mode & 0o7777 : nil
    }

    @Test func makesEveryMissingLevelPrivate() throws {
        let root = temporary()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let deep = root + "/a/b/c"
        try PrivateDirectory.create(deep).get()
        for level in [root + "/a", root + "/a/b", deep] { #expect(mode(level) == 0o700, "\(level)") }
        #expect(mode(root) == 0o755)  // what existed is kept as it was
    }

    @Test func keepsAnExistingDirectoryAsItIs() throws {
        let root = temporary()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try PrivateDirectory.create(root).get()
        try PrivateDirectory.create(root + "/").get()
        #expect(mode(root) == 0o755)
    }

    @Test func refusesAFileOrALinkWhereTheDirectoryGoes() throws {
        let root = temporary()
        defer { try? FileManager.default.removeItem(atPath: root) }
        close(open(root + "/file", O_CREAT | O_WRONLY, 0o600))
        let notDirectory = "\(Errno.notDirectory)"
        #expect(failure(PrivateDirectory.create(root + "/file")) == "mkdir \(root)/file: \(notDirectory)")
        #expect(failure(PrivateDirectory.create(root + "/file/below")) == "mkdir \(root)/file: \(notDirectory)")
        // A link planted where the private directory goes is not followed; a link above it is.
        mkdir(root + "/elsewhere", 0o755)
        symlink(root + "/elsewhere", root + "/link")
        #expect(failure(PrivateDirectory.create(root + "/link")) == "mkdir \(root)/link: \(notDirectory)")
        try PrivateDirectory.create(root + "/link/inner").get()
        #expect(mode(root + "/elsewhere/inner") == 0o700)
    }

    @Test func namesTheLevelItCouldNotMake() {
        // Nobody, root included, makes a directory in /proc.
        guard case .failure(let failure) = PrivateDirectory.create("/proc/bandkit-test/x") else { Issue.record("made"); return }
        #expect(failure.call == "mkdir" && failure.path == "/proc/bandkit-test", "\(failure)")
    }
}
