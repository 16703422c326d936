import BandATT
import BandGATT
import BandTestSupport
import BandWire
import Foundation
import Testing
@testable import BandTrace

/// The same session written as btsnoop and as pcapng decodes to the same events.
@Suite struct PcapngDecodeTests {
    typealias F = TraceFixtures

    /// Everything the output of `bandsim decode` is made of, per event.
    enum Seen: Equatable {
        case att(t: Int64, dir: TraceDirection, adapter: UInt16, conn: UInt16, pdu: [UInt8], handle: UInt16?, uuid: BluetoothUUID?, record: Int)
        case connection(ConnectionTraceEvent)
        case anomaly(recordIndex: Int)
    }

    static func decode<Source: TraceRecordSource>(_ source: Source) -> (seen: [Seen], failure: Source.Failure?) {
        let decoder = TraceDecoder(source: source)
        var seen: [Seen] = []
        do throws(Source.Failure) {
            while let event = try decoder.next() {
                switch event {
                case .att(let e):
                    seen.append(.att(t: e.trace.unixMicroseconds, dir: e.trace.direction, adapter: e.trace.adapter, conn: e.trace.connection,
                                     pdu: Array(e.trace.pdu), handle: e.handle, uuid: e.type, record: e.trace.recordIndex))
                case .connection(let change): seen.append(.connection(change))
                case .anomaly(let anomaly): seen.append(.anomaly(recordIndex: anomaly.recordIndex))
                }
            }
            return (seen, nil)
        } catch {
            return (seen, error)
        }
    }

    /// An opened file through the reader its format picked, its error as the file's.
    static func decode(_ file: OpenedTraceFile) -> (seen: [Seen], failure: TraceFileError?) {
        switch file {
        case .btsnoop(let reader): let (seen, failure) = decode(reader); return (seen, failure.map(BtsnoopFileReader.traceFileError))
        case .pcapng(let reader): let (seen, failure) = decode(reader); return (seen, failure.map(PcapngFileReader.traceFileError))
        case .pcap(let reader): let (seen, failure) = decode(reader); return (seen, failure.map(PcapFileReader.traceFileError))
        }
    }

    static func decodeBtsnoop(_ file: [UInt8]) -> [Seen] {
        file.withUnsafeBytes { decode(try! BtsnoopMemoryReader(bytes: $0)).seen }
    }

    static func decodePcapng(_ file: [UInt8]) -> (seen: [Seen], failure: CaptureFileError?) {
        file.withUnsafeBytes { raw in
            do throws(CaptureFileError) {
                let result = decode(try PcapngMemoryReader(bytes: raw))
                return (result.seen, result.failure)
            } catch {
                return ([], error)
            }
        }
    }

    static func generated(datalink: BtsnoopDatalink) throws -> [UInt8] {
        var configuration = SyntheticHeartRateTrace.Configuration()
        configuration.heartRateNotifications = 400
        let path = try TraceDecoderTests.generate(configuration, datalink: datalink).path
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @Test(arguments: [BtsnoopDatalink.h4, .linuxMonitor], [false, true])
    func generatedSessionDecodesTheSameFromBtsnoopAndPcapng(datalink: BtsnoopDatalink, bigEndian: Bool) throws {
        let btsnoop = try Self.generated(datalink: datalink)
        let f = PcapngFixtures(bigEndian: bigEndian)
        // Name Resolution and custom blocks between packets must change nothing.
        let pcapng = f.pcapng(fromBtsnoop: btsnoop, extraBlock: f.block(0x0BAD, f.u32(32473) + [1, 2, 3]), every: 5)
        let expected = Self.decodeBtsnoop(btsnoop)
        let (seen, failure) = Self.decodePcapng(pcapng)
        #expect(failure == nil)
        #expect(expected.count > 400)
        #expect(seen == expected)
    }

    @Test func damageDeliversEverythingBeforeItThenNamesTheBlock() throws {
        let btsnoop = try Self.generated(datalink: .h4)
        let f = PcapngFixtures(bigEndian: false)
        let pcapng = f.pcapng(fromBtsnoop: btsnoop)
        // Cut the file in the middle of packet 300's block: everything before it decodes.
        var offset = 28 + 20
        var block = 0
        while block < 300 {
            offset += Int(pcapng[offset + 4]) | Int(pcapng[offset + 5]) << 8
            block += 1
        }
        let cut = Array(pcapng.prefix(offset + 10))
        let (seen, failure) = Self.decodePcapng(cut)
        #expect(failure == CaptureFileError(.pcapng, .truncated(expected: Int(pcapng[offset + 4]) | Int(pcapng[offset + 5]) << 8, available: 10),
                                            blockIndex: 302, offset: offset))
        let before = Self.decodeBtsnoop(btsnoop).filter {
            if case .att(_, _, _, _, _, _, _, let record) = $0 { return record < 300 }
            return true
        }
        #expect(Array(seen.prefix(before.count - 1)) == Array(before.prefix(before.count - 1)))
    }

    @Test(arguments: ["dsd6_btsnoop_hci_3.log", "miband2_ec521_btsnoop_hci.log"])
    func realCapturesDecodeTheSameAsPcapngAndPcap(name: String) throws {
        guard let path = F.capture(name) else {
            print("skipped: \(name) not found beside the repository (shared/captures)")
            return
        }
        let btsnoop = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let expected = Self.decodeBtsnoop(btsnoop)
        for bigEndian in [false, true] {
            let (seen, failure) = Self.decodePcapng(PcapngFixtures(bigEndian: bigEndian).pcapng(fromBtsnoop: btsnoop))
            #expect(failure == nil)
            #expect(seen == expected)
        }
    }

    @Test func traceFileReaderDetectsEachFormatOnDisk() throws {
        let btsnoop = try Self.generated(datalink: .h4)
        let f = PcapngFixtures(bigEndian: true)
        let pcapng = f.pcapng(fromBtsnoop: btsnoop)
        // The same packets as classic pcap (link type 201, µs).
        var pcap = f.pcapHeader()
        btsnoop.withUnsafeBytes { raw in
            var reader = try! BtsnoopMemoryReader(bytes: raw)
            while let record = try! reader.next() {
                let micros = record.unixMicroseconds
                pcap += f.pcapRecord(seconds: UInt32(micros / 1_000_000), fraction: UInt32(micros % 1_000_000),
                                     [0, 0, 0, UInt8(record.flags & 1)] + Array(record.data))
            }
        }
        let expected = Self.decodeBtsnoop(btsnoop)
        for (format, bytes) in [(TraceFileFormat.btsnoop, btsnoop), (.pcapng, pcapng), (.pcap, pcap)] {
            let path = F.temporaryPath("trace.\(format)")
            F.write(bytes, to: path)
            let file = try OpenedTraceFile(path: path)
            #expect(file.format == format)
            let (seen, failure) = Self.decode(file)
            #expect(failure == nil)
            #expect(seen == expected, "\(format)")
        }
        // Forcing the wrong format names what the file is not.
        let path = F.temporaryPath("trace.pcapng")
        F.write(pcapng, to: path)
        #expect(throws: TraceFileError.btsnoop(BtsnoopError(.badMagic, recordIndex: nil, offset: 0))) {
            _ = try OpenedTraceFile(path: path, format: .btsnoop)
        }
        #expect(throws: TraceFileError.capture(CaptureFileError(.pcap, .badMagic, blockIndex: nil, offset: 0))) {
            _ = try OpenedTraceFile(path: path, format: .pcap)
        }
    }
}
