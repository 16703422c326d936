import Foundation
import HealthModel
import HealthStore
import HealthTestSupport
import Testing

/// Commands that only read open the store read-only: a store on a read-only filesystem can be
/// read, reading never creates a store, and errors name the file and the failing step.
@Suite struct ReadOnlyStoreTests {
    /// Runs `script` with `sh` in a new user and mount namespace, where it may mount a tmpfs and
    /// remount it read-only (no privileges needed, nothing left behind).
    static func inMountNamespace(_ script: String) throws -> (code: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments = ["--map-root-user", "--mount", "sh", "-c", script]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    static var namespacesWork: Bool {
        (try? inMountNamespace("mkdir -p /tmp && mount -t tmpfs tmpfs /mnt && mount -o remount,ro /mnt"))?.code == 0
    }

    @Test(.enabled(if: ReadOnlyStoreTests.namespacesWork, "needs unshare with user and mount namespaces"))
    func aStoreOnAReadOnlyFilesystemCanBeReadAndWritingSaysWhyNot() throws {
        let temp = try TemporaryStore()
        // Written by a process that has ended: everything checkpointed into the one file.
        let source = temp.directory + "/written.sqlite"
        let health = HealthCommand(store: source)
        #expect(try health.run("import", "-", input: minuteSteps(count: 3, source: "com.example.app")).code == 0)
        let mount = temp.directory + "/ro"
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        let store = mount + "/health.sqlite"
        let binary = HealthCommand.binary
        let script = """
            mount -t tmpfs tmpfs '\(mount)' && cp -p '\(source)' '\(store)' && mount -o remount,ro '\(mount)' || exit 99
            for args in "export" "query step-count" "stats step-count --day 2026-11-30 --tz UTC --json" "sources" "changes --since 0 --json" "priority step-count"; do
              echo "== $args"; TZ=UTC '\(binary)' $args --store '\(store)' 2>&1; echo "rc=$?"
            done
            echo "== import"; '\(binary)' import /dev/null --store '\(store)' 2>&1; echo "rc=$?"
            """
        let (code, output) = try Self.inMountNamespace(script)
        #expect(code == 0, "\(output)")
        let sections = output.components(separatedBy: "== ").dropFirst()
        #expect(sections.count == 7, "\(output)")
        for section in sections.dropLast() {
            #expect(section.hasSuffix("rc=0\n"), "\(section)")
        }
        #expect(sections.first?.contains(#""type":"step-count""#) == true)
        #expect(output.contains(#""value":30"#), "the day's sum read from the read-only store")
        // A command that writes fails, naming the file and the step, without the SQL.
        let write = try #require(sections.last)
        #expect(write.contains("rc=1"))
        #expect(write.contains("health: cannot open store \(store): configure (journal mode, synchronous, cache): unable to open database file"), "\(write)")
        #expect(!write.contains("PRAGMA"), "\(write)")
    }

    @Test func readingNeverCreatesAStoreAndShowsAMissingOneAsEmpty() throws {
        let temp = try TemporaryStore()
        let missing = temp.directory + "/none/health.sqlite"
        let sources = try HealthCommand(store: missing).run("sources")
        #expect(sources.code == 0 && sources.output == "no samples\n", "\(sources.error)")
        #expect(sources.error.contains("health: no store at \(missing) yet (nothing written); reading it as empty"), "\(sources.error)")
        let export = try HealthCommand(store: missing).run("export")
        #expect(export.code == 0 && export.output.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: missing))
        #expect(!FileManager.default.fileExists(atPath: temp.directory + "/none"))
        // The API itself refuses: opening read-only never creates.
        #expect { _ = try HealthStore(path: missing, readOnly: true) } throws: { "\($0)".contains("does not exist") }
    }

    @Test func aReadOnlyStoreRefusesWrites() throws {
        let temp = try TemporaryStore()
        let reader = try HealthStore(path: temp.path, readOnly: true)
        #expect(reader.isReadOnly)
        #expect(throws: HealthStoreError.self) {
            try reader.write(as: .owner) { try $0.save(steps(5, "2026-11-30T08:00:00Z", "2026-11-30T08:01:00Z"), attributedTo: phoneA) }
        }
        try temp.store.write(as: .owner) { try $0.save(steps(5, "2026-11-30T08:00:00Z", "2026-11-30T08:01:00Z"), attributedTo: phoneA) }
        #expect(try reader.samples(HealthQuery(type: .stepCount), as: .owner).count == 1, "sees what a writer committed")
    }

    @Test func aFileThatIsNoStoreNamesTheStep() throws {
        let temp = try TemporaryStore()
        let other = temp.directory + "/notes.sqlite"
        FileManager.default.createFile(atPath: other, contents: Data("not a database at all, just some text".utf8),
                                       attributes: [.posixPermissions: 0o600])
        let result = try HealthCommand(store: other).run("export")
        #expect(result.code == 1)
        #expect(result.error.hasPrefix("health: cannot open store \(other): open read-only: file is not a database"), "\(result.error)")
        #expect(!result.error.contains("sqlite_master"), "\(result.error)")
    }
}
