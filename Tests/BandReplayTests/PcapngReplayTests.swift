import BandReplay
import BandTestSupport
import BandTrace
import Foundation
import HealthModel
import HealthStore
import Testing

/// `bandsim replay` reads pcapng as it reads btsnoop: same events, same store.
@Suite(.serialized) struct PcapngReplayTests {
    /// The btsnoop H4 file at `path` as pcapng (little-endian, link type 201, µs), as
    /// `editcap -F pcapng` writes it.
    static func pcapng(fromBtsnoop path: String) throws -> String {
        func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * UInt32($0))) } }
        func block(_ type: UInt32, _ body: [UInt8]) -> [UInt8] {
            let padded = body + [UInt8](repeating: 0, count: (4 - body.count % 4) % 4)
            return le32(type) + le32(UInt32(12 + padded.count)) + padded + le32(UInt32(12 + padded.count))
        }
        var out = block(0x0A0D_0D0A, le32(0x1A2B_3C4D) + [1, 0, 0, 0] + [UInt8](repeating: 0xFF, count: 8))
            + block(1, [201, 0, 0, 0] + le32(0))
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        try bytes.withUnsafeBytes { raw in
            var reader = try BtsnoopMemoryReader(bytes: raw)
            while let record = try reader.next() {
                let micros = UInt64(bitPattern: record.unixMicroseconds)
                let data = [0, 0, 0, UInt8(record.flags & 1)] + Array(record.data)
                out += block(6, le32(0) + le32(UInt32(micros >> 32)) + le32(UInt32(truncatingIfNeeded: micros))
                             + le32(UInt32(data.count)) + le32(UInt32(data.count)) + data)
            }
        }
        let output = ReplayFixtures.temporaryPath("hr.pcapng")
        try Data(out).write(to: URL(fileURLWithPath: output))
        return output
    }

    @Test func aPcapngTraceGivesTheSameEventsAsItsBtsnoop() throws {
        let (log, _) = try ReplayFixtures.syntheticHeartRateTrace(notifications: 300)
        let pcapng = try Self.pcapng(fromBtsnoop: log)
        let reader = try TraceReplayReader(path: pcapng)
        #expect(reader.format == .pcapng)
        var events = 0
        let outcome = reader.run(keepGoing: false) { _ in events += 1 }
        let (_, expected) = try ReplayFixtures.record(log)
        #expect(outcome.stoppedAt == nil)
        #expect(outcome.records == expected.records && outcome.attPDUs == expected.attPDUs)
        #expect(events > 300)
    }

    @Test func aPcapngTraceFillsTheStoreExactlyAsItsBtsnoopDoes() throws {
        let (log, _) = try ReplayFixtures.syntheticHeartRateTrace(notifications: 300)
        let pcapng = try Self.pcapng(fromBtsnoop: log)
        let fromBtsnoop = try TemporaryStore()
        let fromPcapng = try TemporaryStore()
        let a = try TraceStoreReplay(path: log, options: .init()).run(into: fromBtsnoop.store)
        let b = try TraceStoreReplay(path: pcapng, options: .init()).run(into: fromPcapng.store)
        #expect(a.notifications == b.notifications && a.total.samplesInserted == b.total.samplesInserted)
        #expect(try fromBtsnoop.samples(.heartRate).map(\.syncIdentifier) == fromPcapng.samples(.heartRate).map(\.syncIdentifier))
        // The same session from the other format changes nothing.
        let again = try TraceStoreReplay(path: pcapng, options: .init()).run(into: fromBtsnoop.store)
        #expect(again.total.samplesInserted == 0 && again.total.samplesReplaced == 0)
    }

    @Test func aCutPcapngStopsWithTheBlockAndOffsetAfterEverythingBefore() throws {
        let (log, _) = try ReplayFixtures.syntheticHeartRateTrace(notifications: 100)
        let pcapng = try Self.pcapng(fromBtsnoop: log)
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: pcapng)))
        bytes.removeLast(5)
        let cut = ReplayFixtures.temporaryPath("cut.pcapng")
        try Data(bytes).write(to: URL(fileURLWithPath: cut))
        let outcome = try TraceReplayReader(path: cut).run(keepGoing: false) { _ in }
        let damage = try #require(outcome.stoppedAt)
        #expect(damage.kind == .truncatedTail)
        // SHB and IDB are blocks 0 and 1: the block index is named as such, not as a record index.
        #expect(damage.recordIndex == nil)
        #expect(damage.description.hasPrefix("byte offset \(damage.offset): pcapng block \(outcome.records + 2): file ends inside a block ("))
        #expect(damage.description.hasSuffix(" \(bytes.count - damage.offset) present)"))
        // Forcing btsnoop on it is framing damage at offset 0.
        #expect(throws: TraceDamage.self) { _ = try TraceReplayReader(path: cut, format: .btsnoop) }
    }
}
