import Foundation
import Testing

/// One rule for damaged-but-framed btsnoop files in `bandsim decode` and `bandsim replay`
/// (a user must get the same answer from both): without --keep-going both stop at the first
/// damaged record with exit 65;
/// with it both go to the end, list the first 10 damaged records and count the rest in one line,
/// and exit 0 unless the framing broke. Decode used to exit 0 without the flag and print one
/// line per damaged record (44.7 M lines for a 1 GB file of empty records).
@Suite(.serialized, .enabled(if: Commands.available, "needs bandsim, band and health built (swift build)"))
struct DamagedTraceRuleTests {
    static let damagedRecords = 3000

    /// A clean synthetic session, and the same with `damagedRecords` empty records (framed but
    /// holding no HCI packet) appended after it.
    func traces(in world: DemoWorld) throws -> (clean: String, damaged: String) {
        let clean = world.directory + "/clean.btsnoop"
        let generated = try RunningCommand.run("bandsim", ["generate-trace", clean, "--notifications", "200"])
        #expect(generated.status == 0, "\(generated.stderr)")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: clean))
        // btsnoop record header: original length, included length, flags, drops (4 bytes each,
        // big-endian), timestamp (8): a record of 0 bytes.
        let empty = Data(repeating: 0, count: 16) + Data([0x00, 0xE0, 0x3A, 0xB4, 0x4D, 0x0D, 0x00, 0x00])
        for _ in 0..<Self.damagedRecords { bytes.append(empty) }
        let damaged = world.directory + "/damaged.btsnoop"
        try bytes.write(to: URL(fileURLWithPath: damaged))
        return (clean, damaged)
    }

    func lines(_ text: String) -> [Substring] { text.split(separator: "\n") }

    /// The decoded PDUs, without the closing statistics line (its record counts include the damage).
    func decoded(_ text: String) -> [Substring] { lines(text).filter { !$0.hasPrefix("# ") } }

    @Test func decodeStopsAtTheFirstDamagedRecordWithExit65UnlessToldToKeepGoing() throws {
        let world = try DemoWorld()
        let (clean, damaged) = try traces(in: world)
        let reference = try RunningCommand.run("bandsim", ["decode", clean])
        #expect(reference.status == 0)

        let stopped = try RunningCommand.run("bandsim", ["decode", damaged])
        #expect(stopped.status == 65, "damage is bad data: \(stopped.stderr)")
        #expect(decoded(stopped.stdout) == decoded(reference.stdout), "everything before the damage is decoded")
        #expect(lines(stopped.stderr).count == 1)
        #expect(stopped.stderr.contains("record ") && stopped.stderr.contains("byte offset") && stopped.stderr.contains("--keep-going"),
                "\(stopped.stderr)")

        let kept = try RunningCommand.run("bandsim", ["decode", damaged, "--keep-going"])
        #expect(kept.status == 0, "\(kept.stderr.prefix(500))")
        #expect(decoded(kept.stdout) == decoded(reference.stdout))
        let errors = lines(kept.stderr)
        #expect(errors.count == 11, "10 listed, then one summary line, not one line per damaged record")
        #expect(errors.last?.contains("\(Self.damagedRecords) damaged records skipped (\(Self.damagedRecords - 10) not listed)") == true,
                "\(errors.last ?? "")")
    }

    @Test func replayFollowsTheSameRuleIntoAStore() throws {
        let world = try DemoWorld()
        let (_, damaged) = try traces(in: world)
        let stopped = try RunningCommand.run("bandsim", ["replay", damaged, "--into", world.directory + "/a.sqlite"])
        #expect(stopped.status == 65, "\(stopped.stderr)")
        #expect(stopped.stderr.contains("--keep-going"))
        let kept = try RunningCommand.run("bandsim", ["replay", damaged, "--into", world.directory + "/b.sqlite", "--keep-going"])
        #expect(kept.status == 0, "\(kept.stderr.prefix(500))")
        #expect(kept.stdout.contains("\(Self.damagedRecords) damaged records skipped"), "\(kept.stdout)")
    }

    @Test func aFileCutInsideItsLastRecordIsPassedOverWithKeepGoingByBoth() throws {
        let world = try DemoWorld()
        let (clean, _) = try traces(in: world)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: clean))
        bytes.append(Data([0, 0, 0, 9, 0, 0, 0, 9, 0, 0]))  // 10 bytes of a 24-byte record header
        let cut = world.directory + "/cut.btsnoop"
        try bytes.write(to: URL(fileURLWithPath: cut))
        for arguments in [["decode", cut], ["replay", cut, "--into", world.directory + "/c.sqlite"]] {
            let stopped = try RunningCommand.run("bandsim", arguments)
            #expect(stopped.status == 65, "\(arguments): \(stopped.stderr)")
            let kept = try RunningCommand.run("bandsim", arguments + ["--keep-going"])
            #expect(kept.status == 0, "\(arguments) --keep-going: \(kept.stderr)")
        }
    }
}
