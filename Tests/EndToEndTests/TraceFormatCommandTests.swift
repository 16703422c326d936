import Foundation
import Testing

/// `bandsim decode` and `bandsim replay` on pcapng as a user runs them: same output as the
/// btsnoop of the same session, documented exit codes for bad input.
@Suite(.serialized, .enabled(if: Commands.available, "needs bandsim, band and health built (swift build)"))
struct TraceFormatCommandTests {
    let directory: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("bandkit-trace-format-\(getpid())-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    /// The btsnoop H4 file as pcapng (little-endian, link type 201, µs), as `editcap -F pcapng` writes it.
    static func pcapng(fromBtsnoop bytes: [UInt8]) -> [UInt8] {
        func be32(_ at: Int) -> UInt32 { bytes[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) } }
        func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * UInt32($0))) } }
        func block(_ type: UInt32, _ body: [UInt8]) -> [UInt8] {
            let padded = body + [UInt8](repeating: 0, count: (4 - body.count % 4) % 4)
            return le32(type) + le32(UInt32(12 + padded.count)) + padded + le32(UInt32(12 + padded.count))
        }
        var out = block(0x0A0D_0D0A, le32(0x1A2B_3C4D) + [1, 0, 0, 0] + [UInt8](repeating: 0xFF, count: 8))
            + block(1, [201, 0, 0, 0] + le32(0))
        var at = 16
        while at + 24 <= bytes.count {
            let included = Int(be32(at + 4)), flags = be32(at + 8)
            let btsnoopTime = UInt64(be32(at + 16)) << 32 | UInt64(be32(at + 20))
            let micros = btsnoopTime &- 0x00DC_DDB3_0F2F_8000
            let data = [0, 0, 0, UInt8(flags & 1)] + Array(bytes[(at + 24)..<(at + 24 + included)])
            out += block(6, le32(0) + le32(UInt32(micros >> 32)) + le32(UInt32(truncatingIfNeeded: micros))
                         + le32(UInt32(data.count)) + le32(UInt32(data.count)) + data)
            at += 24 + included
        }
        return out
    }

    func files() throws -> (log: String, pcapng: String, bytes: [UInt8]) {
        let log = directory.appendingPathComponent("hr.log").path
        let generated = try RunningCommand.run("bandsim", ["generate-trace", log, "--notifications", "300"])
        #expect(generated.status == 0, "\(generated.stderr)")
        let pcapng = Self.pcapng(fromBtsnoop: Array(try Data(contentsOf: URL(fileURLWithPath: log))))
        let path = directory.appendingPathComponent("hr.pcapng").path
        try Data(pcapng).write(to: URL(fileURLWithPath: path))
        return (log, path, pcapng)
    }

    @Test func decodePrintsTheSameForAPcapngAsForItsBtsnoop() throws {
        let (log, pcapng, _) = try files()
        for flags in [["--json"], []] {
            let a = try RunningCommand.run("bandsim", ["decode", log] + flags)
            let b = try RunningCommand.run("bandsim", ["decode", pcapng] + flags)
            #expect(a.status == 0 && b.status == 0, "\(b.stderr)")
            #expect(a.stdout == b.stdout && !a.stdout.isEmpty)
            #expect(b.stderr.isEmpty)
        }
        let forced = try RunningCommand.run("bandsim", ["decode", pcapng, "--format", "pcapng", "--json"])
        #expect(forced.status == 0)
    }

    @Test func badFormatsAndDamagedPcapngExitWithTheirCodes() throws {
        let (_, pcapng, bytes) = try files()
        let usage = try RunningCommand.run("bandsim", ["decode", pcapng, "--format", "pcapng2"])
        #expect(usage.status == 64)
        #expect(usage.stderr.contains("--format"))
        let wrong = try RunningCommand.run("bandsim", ["decode", pcapng, "--format", "btsnoop"])
        #expect(wrong.status == 65)
        #expect(wrong.stderr.contains("not a btsnoop file"))
        let cut = directory.appendingPathComponent("cut.pcapng").path
        try Data(bytes.dropLast(9)).write(to: URL(fileURLWithPath: cut))
        let damaged = try RunningCommand.run("bandsim", ["decode", cut, "--json"])
        #expect(damaged.status == 65)
        #expect(damaged.stderr.contains("pcapng block ") && damaged.stderr.contains("file ends inside a block"))
        #expect(damaged.stdout.split(separator: "\n").count > 300, "everything before the damage is printed")
        let replay = try RunningCommand.run("bandsim", ["replay", cut, "--into", directory.appendingPathComponent("s.sqlite").path])
        #expect(replay.status == 65)
        #expect(replay.stderr.contains("pcapng block "))
    }

    @Test func replayIntoAStoreReadsPcapng() throws {
        let (_, pcapng, _) = try files()
        let store = directory.appendingPathComponent("health.sqlite").path
        let replay = try RunningCommand.run("bandsim", ["replay", pcapng, "--into", store])
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stdout.contains("notifications: "))
    }
}
