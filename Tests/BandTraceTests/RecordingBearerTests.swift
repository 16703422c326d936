import BandLink
import BandTestSupport
import BandWire
import Foundation
import Testing
@testable import BandTrace

/// The one trace recorder under each failure policy, against a disk that is full from the first
/// byte (`/dev/full`: every write fails with ENOSPC) and a small write buffer, so every record
/// reaches the disk at once and fails there.
@Suite struct RecordingBearerTests {
    let band = LEAddress(BluetoothAddress(0xC80F_1012_3456), type: .random)

    /// A recorder over `/dev/full`, flushing every record.
    func fullDiskRecorder() throws -> ATTTraceRecorder {
        let writer = try BtsnoopWriter(path: "/dev/full", datalink: .h4, bufferSize: BtsnoopFileHeader.size + BtsnoopRecordHeader.size)
        return ATTTraceRecorder(writer: writer, connection: 0x0040)
    }

    /// Sends a PDU each way over the recording bearer and checks the link carried both.
    func converse(_ bearer: RecordingBearer, _ peer: any ATTBearer) throws {
        try bearer.send(bytes("0a 03 00"))
        #expect(try peer.receive(timeout: .seconds(1)) == bytes("0a 03 00"))
        try peer.send(bytes("0b 41"))
        #expect(try bearer.receive(timeout: .seconds(1)) == bytes("0b 41"))
    }

    @Test func stopQuietlyKeepsTheLinkGoingAndKeepsTheErrorForTheCaller() throws {
        let (a, b) = try SeqPacketLink.pair()
        let bearer = try RecordingBearer(recording: a, into: try fullDiskRecorder(), vantage: .central, peer: band, policy: .stopQuietly)
        #expect(bearer.failure?.kind == .system(call: "write", errno: ENOSPC), "LE Connection Complete already failed")
        try converse(bearer, b)
        try converse(bearer, b)
        bearer.close()
        #expect(bearer.recordedPDUs == 0, "nothing was recorded after the first failure")
        #expect(bearer.failure?.kind == .system(call: "write", errno: ENOSPC))
    }

    @Test func reportTellsOnceNamingTheFileAndKeepsTheLinkGoing() throws {
        let (a, b) = try SeqPacketLink.pair()
        var reports: [String] = []
        let bearer = try RecordingBearer(recording: a, into: try fullDiskRecorder(), vantage: .central, peer: band,
                                         policy: .report { reports.append($0) })
        try converse(bearer, b)
        try converse(bearer, b)
        bearer.close()
        #expect(reports.count == 1, "one message, not one per PDU: \(reports)")
        #expect(reports.first?.hasPrefix("trace /dev/full: recording stopped: ") == true, "\(reports)")
        #expect(reports.first?.contains("\(ENOSPC)") == true || reports.first?.localizedCaseInsensitiveContains("space") == true, "\(reports)")
    }

    @Test func failLinkFailsTheLinkOperationWithThePathAndErrno() throws {
        let (a, b) = try SeqPacketLink.pair()
        #expect(throws: LinkError.system(call: "write /dev/full", errno: ENOSPC)) {
            _ = try RecordingBearer(recording: a, into: try fullDiskRecorder(), vantage: .central, peer: band, policy: .failLink)
        }
        // A disk that fills after the connection was recorded: the send fails (the PDU went out,
        // but the caller learns its trace has a hole), and so does every later one.
        let writer = try BtsnoopWriter(path: "/dev/full", datalink: .h4)  // buffered: LE Connection Complete fits
        let bearer = try RecordingBearer(recording: a, into: ATTTraceRecorder(writer: writer, connection: 0x40),
                                         vantage: .central, peer: band, policy: .failLink)
        bearer.mtu = 247
        b.mtu = 247
        let large = [UInt8](repeating: 0x55, count: 200)
        var failures = 0
        for _ in 0..<400 {
            do throws(LinkError) { try bearer.send(large) } catch {
                #expect(error == .system(call: "write /dev/full", errno: ENOSPC))
                failures += 1
            }
            #expect(try b.receive(timeout: .seconds(1)) == large, "the PDU went out all the same")
        }
        #expect(failures > 0, "a 64 KiB buffer fills within 400 × 200-byte PDUs")
        bearer.close()
        #expect(bearer.failure?.kind == .system(call: "write", errno: ENOSPC), "finishing the file failed too")
    }

    @Test func eachVantageWritesItsRoleAndDirections() throws {
        for (vantage, sent, role) in [(RecordingVantage.central, TraceDirection.tx, UInt8(0)),
                                      (.peripheral, .tx, 1), (.centralOfThisPeripheral, .rx, 0)] {
            let path = NSTemporaryDirectory() + "recording-\(UUID().uuidString).log"
            defer { try? FileManager.default.removeItem(atPath: path) }
            let (a, b) = try SeqPacketLink.pair()
            let bearer = try RecordingBearer(recording: a, to: path, vantage: vantage, peer: band, policy: .failLink, clock: { 1_000 })
            try converse(bearer, b)
            bearer.close()
            #expect(bearer.failure == nil && bearer.recordedPDUs == 2)
            let file = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            var directions: [TraceDirection] = []
            var roles: [UInt8] = []
            try file.withUnsafeBytes { raw in
                var source = try BtsnoopMemoryReader(bytes: raw)
                let extractor = ATTExtractor()
                while let record = try source.next() {
                    // H4 event: 04 3E len 01(subevent) status handle(2) role …
                    if record.data.count > 7, record.data[0] == 0x04, record.data[1] == 0x3E, record.data[3] == 0x01 {
                        roles.append(record.data[7])
                    }
                    if case .att(let event)? = extractor.process(record, datalink: source.datalink).event {
                        directions.append(event.direction)
                    }
                }
            }
            #expect(directions == [sent, sent == .tx ? .rx : .tx], "\(vantage)")
            #expect(roles == [role], "\(vantage)")
        }
    }
}
