import BandATT
import BandTestSupport
import BandWire
import Foundation
import Testing
@testable import BandTrace

@Suite struct ATTTraceRecorderTests {
    typealias F = TraceFixtures

    /// Records a connection, a 40-byte notification over 27-byte ACL packets and a write; returns the file.
    func record(datalink: BtsnoopDatalink) throws -> [UInt8] {
        let path = F.temporaryPath("recorded.log")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try BtsnoopWriter(path: path, datalink: datalink)
        let recorder = ATTTraceRecorder(writer: writer, connection: 0x0040)
        let peer = LEAddress(BluetoothAddress(0xC80F_1012_3456), type: .public)
        try recorder.recordConnection(peer: peer, at: 1_000)
        let notification = [0x1B, 0x12, 0x00] + [UInt8](repeating: 0x55, count: 37)
        try notification.withUnsafeBytes { try recorder.record(pdu: $0, direction: .rx, at: 2_000) }
        try recorder.record(ATTWriteRequest(handle: 0x13, value: AttributeBytes([0x01, 0x00])), direction: .tx, at: 3_000)
        try recorder.recordDisconnection(at: 4_000)
        try writer.close()
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @Test func fragmentsLikeAControllerWithAndroidBoundaryFlags() throws {
        let file = try record(datalink: .h4)
        let (records, error) = readAll(file)
        #expect(error == nil)
        #expect(records.map { Array($0.data) } == [
            [0x04] + F.leConnectionComplete(handle: 0x40),
            [0x02] + F.acl(handle: 0x40, pb: 2, Array(F.l2cap([0x1B, 0x12, 0x00] + [UInt8](repeating: 0x55, count: 37)).prefix(27))),
            [0x02] + F.acl(handle: 0x40, pb: 1, [UInt8](repeating: 0x55, count: 17)),
            [0x02] + F.acl(handle: 0x40, pb: 0, F.l2cap(bytes("12 13 00 01 00"))),
            [0x04] + F.disconnectionComplete(handle: 0x40),
        ])
        #expect(records.map(\.header.flags) == [3, 1, 1, 0, 3])
        #expect(records.map(\.header.unixMicroseconds) == [1_000, 2_000, 2_000, 3_000, 4_000])
    }

    @Test func recordedSessionDecodesBackToTheSamePDUs() throws {
        for datalink in [BtsnoopDatalink.h4, .linuxMonitor, .h1] {
            let file = try record(datalink: datalink)
            let pdus: [[UInt8]] = try file.withUnsafeBytes { raw in
                let decoder = TraceDecoder(source: try BtsnoopMemoryReader(bytes: raw))
                var out: [[UInt8]] = []
                while let event = try decoder.next() { if case .att(let e) = event { out.append(Array(e.trace.pdu)) } }
                return out
            }
            #expect(pdus == [[0x1B, 0x12, 0x00] + [UInt8](repeating: 0x55, count: 37), bytes("12 13 00 01 00")], "\(datalink)")
        }
    }
}
