import BandATT
import BandFirmware
import BandLink
import BandProtocol
import BandReader
import BandWire
import Foundation
import Synchronization
import HealthModel
import HealthStore
import Testing

/// Durable before acknowledged: the band erases the records it is
/// acknowledged, so a power cut at the instant of the acknowledgement must leave the store
/// holding every one of them. The power cut is simulated by ``PowerLossVFS``: at each
/// acknowledgement the reader sends, the store's files are copied as the disk holds them (writes
/// not yet fsynced dropped), reopened, and compared with the records the band may now erase.
@Suite(.serialized) struct PowerLossBeforeAcknowledgementTests {
    /// A reader-side link that calls `onAcknowledgement` with each history acknowledgement just
    /// before the band can see it (an ATT Write Request whose value is an Acknowledge).
    final class AcknowledgementWatch: ATTBearer {
        private let link: any ATTBearer
        private let onAcknowledgement: (HistoryAcknowledgeRequest) -> Void

        init(_ link: any ATTBearer, onAcknowledgement: @escaping (HistoryAcknowledgeRequest) -> Void) {
            self.link = link
            self.onAcknowledgement = onAcknowledgement
        }

        var mtu: Int {
            get { link.mtu }
            set { link.mtu = newValue }
        }

        var pollDescriptor: Int32? { link.pollDescriptor }

        func send(_ pdu: UnsafeRawBufferPointer) throws(LinkError) {
            // Write Request: opcode, handle (2), value. The Acknowledge value is 9 bytes with
            // opcode 0x02; the auth Challenge (also 0x02) is 17 bytes, so the length decides.
            if pdu.count == 3 + HistoryAcknowledgeRequest.size, pdu[0] == ATTOpcode.writeRequest.rawValue,
               pdu[3] == HistoryOpcode.acknowledge.rawValue,
               let request = try? HistoryAcknowledgeRequest(parsingAll: Array(pdu[3...])) {
                onAcknowledgement(request)
            }
            try link.send(pdu)
        }

        func receive(into buffer: UnsafeMutableRawBufferPointer, timeout: Duration?) throws(LinkError) -> Int? {
            try link.receive(into: buffer, timeout: timeout)
        }

        func close() { link.close() }
    }

    struct PowerCut {
        var acknowledged: HistoryAcknowledgeRequest
        var image: String
    }

    @Test func aPowerCutAtEveryAcknowledgementLeavesEveryErasedMinuteInTheStore() throws {
        let vfs = PowerLossVFS.install()
        var configuration = BandConfiguration(start: ReaderAgainstSimulatedBandTests.start)
        configuration.seed = 17
        configuration.historyDays = 2
        configuration.deterministicSecrets = true
        let fixture = try ReaderFixture(configuration)
        _ = try #require(try fixture.service().pair())
        fixture.harness.pause()

        vfs.track(directory: fixture.directory)
        defer { vfs.stopTracking() }
        let harness = fixture.harness
        let cuts = Mutex<[PowerCut]>([])
        let service = BandReaderService(
            address: .simulator(path: "/harness"), keystore: fixture.keystore, storePath: fixture.storePath, stop: StopRequest(),
            openLink: { _ in
                AcknowledgementWatch(try harness.openLink()) { request in
                    let image = fixture.directory + "-power-cut-\(cuts.withLock { $0.count })"
                    _ = try? vfs.powerCut(into: image)
                    cuts.withLock { $0.append(PowerCut(acknowledged: request, image: image)) }
                }
            },
            report: { _ in })
        service.now = { harness.now }
        service.timeZone = TimeZone(identifier: "UTC")!
        service.transactionTimeout = .seconds(5)
        let synced = try service.sync()
        #expect(synced.historyMinutes >= 2 * 1440)

        // The band's identity in sync identifiers, which names its cursor.
        let anySample = try #require(try fixture.openStore().samples(HealthQuery(type: .stepCount), as: .owner).first?.quantitySample)
        let device = try #require(anySample.syncIdentifier?.split(separator: "|").first.map(String.init))

        let taken = cuts.withLock { $0 }
        #expect(taken.count >= 2, "one acknowledgement per slice of 1440 records")
        for cut in taken {
            defer { try? FileManager.default.removeItem(atPath: cut.image) }
            let erased = harness.truth(before: cut.acknowledged.endSequence)
            #expect(!erased.isEmpty)
            let store = try HealthStore(path: cut.image + "/health.sqlite")
            let check = try TruthCheck(truth: erased, store: store)
            #expect(check.problems.isEmpty,
                    "after a power cut at the acknowledgement of \(cut.acknowledged.endSequence): \(check.problems.count) problems, first \(check.problems.prefix(3))")
            let cursor = try store.appState(app: SampleWriter.app.id, key: HistoryCursor.key(device: device)).flatMap(HistoryCursor.init(stored:))
            #expect(cursor?.nextSequence == cut.acknowledged.endSequence,
                    "the cursor survived the power cut with the records it points past")
        }
    }
}
