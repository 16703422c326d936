import BandReplay
import BandTrace
import Foundation
import Testing

/// `TraceReplayReader(bytes:)` (what fuzz/replay feeds) gives exactly what the same bytes give
/// from a file (what `bandsim replay` opens): every event, every skipped or stopping damage with
/// its record and offset, for btsnoop, pcapng and pcap, whole, cut at every offset and with a
/// bit flipped at every offset.
@Suite struct InMemoryTraceReplayTests {
    /// Everything a replay reports, as comparable text: the events in order, then the outcome.
    struct Transcript: Equatable, CustomStringConvertible {
        var format: TraceFileFormat?
        var openError: TraceDamage?
        var events: [String] = []
        var records = 0, attPDUs = 0, skippedCount = 0
        var skipped: [TraceDamage] = []
        var skippedByKind: [TraceDamage.Kind: Int] = [:]
        var stoppedAt: TraceDamage?

        var description: String {
            "format \(String(describing: format)), open \(String(describing: openError)), \(events.count) events, records \(records), "
                + "ATT \(attPDUs), skipped \(skippedCount) \(skipped), stopped \(String(describing: stoppedAt))"
        }

        init(_ open: () throws(TraceDamage) -> TraceReplayReader, keepGoing: Bool) {
            let reader: TraceReplayReader
            do throws(TraceDamage) {
                reader = try open()
            } catch {
                openError = error
                return
            }
            format = reader.format
            var events: [String] = []
            let outcome = reader.run(keepGoing: keepGoing) { event in
                switch event {
                case .connected(let connection, let peer, let time): events.append("connected \(connection) \(peer) \(time)")
                case .disconnected(let connection, let time): events.append("disconnected \(connection) \(time)")
                case .att(let att, let sender, let connection):
                    let trace = att.trace
                    events.append("att \(sender) \(connection) #\(trace.recordIndex)@\(trace.recordOffset) \(trace.unixMicroseconds) "
                        + "\(Array(trace.pdu)) handle \(String(describing: att.handle)) type \(String(describing: att.type))")
                }
            }
            self.events = events
            (records, attPDUs, skippedCount, skipped, skippedByKind, stoppedAt) =
                (outcome.records, outcome.attPDUs, outcome.skippedCount, outcome.skipped, outcome.skippedByKind, outcome.stoppedAt)
        }
    }

    /// The same bytes read from a file and from memory.
    static func bothWays(_ bytes: [UInt8], format: TraceFileFormat? = nil, keepGoing: Bool) throws -> (file: Transcript, memory: Transcript) {
        let path = ReplayFixtures.temporaryPath("trace")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let file = Transcript({ () throws(TraceDamage) in try TraceReplayReader(path: path, format: format) }, keepGoing: keepGoing)
        let memory = bytes.withUnsafeBytes { raw in
            Transcript({ () throws(TraceDamage) in try TraceReplayReader(bytes: raw, format: format) }, keepGoing: keepGoing)
        }
        return (file, memory)
    }

    /// A short synthetic session (connection, discovery, notifications, an advertising report)
    /// in each container: btsnoop as written, pcapng as editcap writes it, pcap (µs, link type 201).
    static func traces() throws -> [(TraceFileFormat, [UInt8])] {
        // Few records (the file reader is opened once per cut and per flip): no advertising reports.
        let (log, _) = try ReplayFixtures.syntheticHeartRateTrace(notifications: 6) { $0.advertisingReportEvery = 1_000 }
        let btsnoop = Array(try Data(contentsOf: URL(fileURLWithPath: log)))
        let pcapng = Array(try Data(contentsOf: URL(fileURLWithPath: try PcapngReplayTests.pcapng(fromBtsnoop: log))))
        return [(.btsnoop, btsnoop), (.pcapng, pcapng), (.pcap, try pcap(fromBtsnoop: btsnoop))]
    }

    static func pcap(fromBtsnoop bytes: [UInt8]) throws -> [UInt8] {
        func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * UInt32($0))) } }
        var out = le32(0xA1B2_C3D4) + [2, 0, 4, 0] + le32(0) + le32(0) + le32(65_535) + le32(201)
        try bytes.withUnsafeBytes { raw in
            var reader = try BtsnoopMemoryReader(bytes: raw)
            while let record = try reader.next() {
                let micros = record.unixMicroseconds
                let data = [0, 0, 0, UInt8(record.flags & 1)] + Array(record.data)
                out += le32(UInt32(micros / 1_000_000)) + le32(UInt32(micros % 1_000_000))
                    + le32(UInt32(data.count)) + le32(UInt32(data.count)) + data
            }
        }
        return out
    }

    @Test func aWholeTraceGivesTheSameEventsFromMemoryAsFromAFile() throws {
        for (format, bytes) in try Self.traces() {
            let (file, memory) = try Self.bothWays(bytes, keepGoing: false)
            #expect(memory == file, "\(format)")
            #expect(memory.format == format && memory.stoppedAt == nil && memory.events.count > 6, "\(format): \(memory)")
        }
    }

    @Test func aCutAtEveryOffsetGivesTheSameEventsAndDamageFromMemoryAsFromAFile() throws {
        for (format, bytes) in try Self.traces() {
            for cut in 0...bytes.count {
                for keepGoing in [false, true] {
                    let (file, memory) = try Self.bothWays(Array(bytes.prefix(cut)), keepGoing: keepGoing)
                    #expect(memory == file, "\(format) cut at \(cut), keepGoing \(keepGoing)")
                }
            }
        }
    }

    @Test func aBitFlippedAtEveryOffsetGivesTheSameEventsAndDamageFromMemoryAsFromAFile() throws {
        for (format, bytes) in try Self.traces() {
            var damagedRuns = 0
            for offset in bytes.indices {
                var damaged = bytes
                damaged[offset] ^= 0x41
                // Both damage policies, on alternate offsets (the source is the same for both).
                let keepGoing = offset % 2 == 1
                let (file, memory) = try Self.bothWays(damaged, keepGoing: keepGoing)
                #expect(memory == file, "\(format) flip at \(offset), keepGoing \(keepGoing)")
                if memory.stoppedAt != nil || memory.skippedCount > 0 || memory.openError != nil { damagedRuns += 1 }
            }
            // The flips do reach the damage paths (not only values the decoder takes as they are).
            #expect(damagedRuns > bytes.count / 8, "\(format): \(damagedRuns) damaged runs")
        }
    }

    @Test func aForcedFormatIsReadTheSameWayFromMemory() throws {
        for (_, bytes) in try Self.traces() {
            for forced in [TraceFileFormat.btsnoop, .pcapng, .pcap] {
                let (file, memory) = try Self.bothWays(bytes, format: forced, keepGoing: true)
                #expect(memory == file, "forced \(forced)")
            }
        }
        // No magic at all: read as btsnoop, whose header error names offset 0, as from a file.
        let (file, memory) = try Self.bothWays(Array("not a trace".utf8), keepGoing: false)
        #expect(memory == file)
        #expect(memory.openError?.kind == .framing && memory.openError?.offset == 0)
    }
}
