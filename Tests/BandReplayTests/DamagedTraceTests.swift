import BandReplay
import BandTrace
import Foundation
import HealthModel
import HealthStore
import Testing

/// The records that complete Heart Rate Measurement notifications, and whether each fits one ACL packet.
private func heartRateRecords(_ bytes: [UInt8]) throws -> [(index: Int, offset: Int, whole: Bool)] {
    var found: [(Int, Int, Bool)] = []
    try bytes.withUnsafeBytes { raw in
        var source = try BtsnoopMemoryReader(bytes: raw)
        let extractor = ATTExtractor()
        while let record = try source.next() {
            if case .att(let event)? = extractor.process(record, datalink: source.datalink).event, event.pdu.first == 0x1B,
               event.pdu.count > 3, event.pdu[1] == 0x12 {
                found.append((record.index, record.offset, event.pdu.count + 4 <= 27))
            }
        }
    }
    return found
}

/// An unfragmented heart-rate record `percent` of the way through them, and how many
/// heart-rate notifications precede it.
private func unfragmentedHeartRateRecord(_ bytes: [UInt8], percent: Int) throws -> (index: Int, offset: Int, before: Int) {
    let all = try heartRateRecords(bytes)
    let whole = all.filter(\.whole)
    try #require(whole.count >= 10, "the generator's trace has too few unfragmented heart-rate notifications")
    let chosen = whole[whole.count * percent / 100]
    return (chosen.index, chosen.offset, all.filter { $0.index < chosen.index }.count)
}

private func write(_ bytes: [UInt8]) throws -> String {
    let path = ReplayFixtures.temporaryPath("damaged.log")
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return path
}

@Suite(.serialized) struct DamagedTraceTests {
    @Test func aTraceCutInsideItsLastRecordStopsThereWithRecordAndOffsetAndKeepsWhatCameBefore() throws {
        let (path, _) = try ReplayFixtures.syntheticHeartRateTrace(notifications: 200)
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let cut = try unfragmentedHeartRateRecord(bytes, percent: 75)
        bytes.removeSubrange((cut.offset + 30)...)
        let damaged = try write(bytes)

        let temporary = try TemporaryStore()
        do {
            _ = try TraceStoreReplay(path: damaged, options: .init()).run(into: temporary.store)
            Issue.record("a cut trace replayed without complaint")
        } catch TraceStoreReplay.Failure.damaged(let damage, let summary) {
            #expect(damage.kind == .truncatedTail)
            #expect(damage.recordIndex == cut.index)
            #expect(damage.offset == cut.offset)
            #expect(summary.notifications["2a37"] == cut.before, "everything before the damage was replayed")
        }
        #expect(!(try temporary.samples(.heartRate)).isEmpty, "minutes before the damage are stored")

        var keepGoing = TraceStoreReplay.Options()
        keepGoing.keepGoing = true
        let summary = try TraceStoreReplay(path: damaged, options: keepGoing).run(into: try TemporaryStore().store)
        #expect(summary.trace.skippedCount == 1)
        #expect(summary.trace.skipped.first?.kind == .truncatedTail)
    }

    @Test func aMalformedPacketStopsTheReplayUnlessKeepGoingSkipsAndCountsIt() throws {
        let (path, _) = try ReplayFixtures.syntheticHeartRateTrace(notifications: 200)
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let broken = try unfragmentedHeartRateRecord(bytes, percent: 30)
        bytes[broken.offset + 24 + 1 + 2] &+= 1  // ACL data length one more than the bytes present
        let damaged = try write(bytes)

        do {
            _ = try TraceStoreReplay(path: damaged, options: .init()).run(into: try TemporaryStore().store)
            Issue.record("a malformed packet went unnoticed")
        } catch TraceStoreReplay.Failure.damaged(let damage, let summary) {
            #expect(damage.kind == .packet)
            #expect(damage.recordIndex == broken.index)
            #expect(damage.offset == broken.offset)
            #expect(summary.notifications["2a37"] == broken.before)
        }

        var options = TraceStoreReplay.Options()
        options.keepGoing = true
        let summary = try TraceStoreReplay(path: damaged, options: options).run(into: try TemporaryStore().store)
        #expect(summary.trace.skippedCount == 1)
        #expect(summary.trace.skipped.first?.recordIndex == broken.index)
        #expect(summary.notifications["2a37"] == 199)
    }

    @Test func brokenFramingEndsTheReplayEvenWithKeepGoing() throws {
        let (path, _) = try ReplayFixtures.syntheticHeartRateTrace(notifications: 100)
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let broken = try unfragmentedHeartRateRecord(bytes, percent: 40)
        bytes[broken.offset + 4] = 0x7F  // included length far beyond the original length
        let damaged = try write(bytes)
        var options = TraceStoreReplay.Options()
        options.keepGoing = true
        do {
            _ = try TraceStoreReplay(path: damaged, options: options).run(into: try TemporaryStore().store)
            Issue.record("broken framing went unnoticed")
        } catch TraceStoreReplay.Failure.damaged(let damage, _) {
            #expect(damage.kind == .framing)
            #expect(damage.recordIndex == broken.index)
            #expect(damage.offset == broken.offset)
        }
    }

    @Test func aFileThatIsNotBtsnoopIsFramingDamageAtOffsetZero() throws {
        let path = try write(Array("not a trace at all".utf8))
        #expect(throws: TraceDamage.self) { _ = try TraceStoreReplay(path: path, options: .init()).run(into: try TemporaryStore().store) }
        do { _ = try TraceReplayReader(path: path) } catch {
            #expect(error.kind == .framing && error.offset == 0)
        }
    }
}
