import BandTestSupport
import BandWire
import Testing
@testable import BandTrace

@Suite struct PcapReaderTests {
    static let command = PcapngFixtures.h4WithPseudoHeader(received: false, type: 1, [3, 0x0c, 0])

    @Test(arguments: [(false, false), (false, true), (true, false), (true, true)])
    func allFourMagicsReadTheSamePackets(bigEndian: Bool, nanoseconds: Bool) {
        let f = PcapngFixtures(bigEndian: bigEndian)
        let file = f.pcapHeader(nanoseconds: nanoseconds)
            + f.pcapRecord(seconds: 1_764_460_800, fraction: nanoseconds ? 123_456_789 : 123_456, Self.command)
            + f.pcapRecord(seconds: 1_764_460_801, fraction: 0, [0, 0, 0, 1, 4, 0x0e, 0])
        let (packets, error) = readPackets(file, as: PcapRecordParser.self)
        #expect(error == nil)
        #expect(packets.map(\.index) == [0, 1])
        #expect(packets.map(\.offset) == [24, 24 + 16 + 8])
        #expect(packets[0].micros == 1_764_460_800_123_456)
        #expect(packets[1].micros == 1_764_460_801_000_000)
        #expect(packets[0].data == Self.command && packets[0].linkType == 201)
    }

    @Test func headerErrors() {
        let f = PcapngFixtures(bigEndian: false)
        #expect(readPackets(Array("btsnoop\0abcdefghijklmnop".utf8), as: PcapRecordParser.self).error
                == CaptureFileError(.pcap, .badMagic, blockIndex: nil, offset: 0))
        #expect(readPackets(f.pcapHeader(major: 1), as: PcapRecordParser.self).error
                == CaptureFileError(.pcap, .unsupportedVersion(major: 1, minor: 4), blockIndex: nil, offset: 4))
        #expect(readPackets(Array(f.pcapHeader().prefix(10)), as: PcapRecordParser.self).error
                == CaptureFileError(.pcap, .truncatedFileHeader(available: 10), blockIndex: nil, offset: 0))
    }

    @Test func recordLengthsAreBoundedAndTruncationNamesTheRecord() {
        let f = PcapngFixtures(bigEndian: true)
        let head = f.pcapHeader() + f.pcapRecord(seconds: 1, fraction: 0, Self.command)
        #expect(readPackets(head + f.pcapRecord(seconds: 1, fraction: 0, [], captured: 0x7FFF_0000), as: PcapRecordParser.self).error
                == CaptureFileError(.pcap, .packetTooLong(captured: 0x7FFF_0000, limit: 262_144), blockIndex: 1, offset: head.count))
        let file = head + f.pcapRecord(seconds: 2, fraction: 0, Self.command)
        for length in 0...file.count {
            let (packets, error) = readPackets(Array(file.prefix(length)), as: PcapRecordParser.self)
            let complete = [head.count, file.count].filter { $0 <= length }.count
            #expect(packets.count == complete, "prefix \(length)")
            if [24, head.count, file.count].contains(length) {
                #expect(error == nil, "prefix \(length)")
            } else {
                #expect(error?.isTruncation == true, "prefix \(length)")
                if length > 24 { #expect(error?.blockIndex == complete, "prefix \(length)") }
            }
        }
    }

    @Test func formatIsDetectedFromTheFirstFourBytes() {
        func detect(_ bytes: [UInt8]) -> TraceFileFormat? { bytes.withUnsafeBytes { TraceFileFormat.detect(prefix: $0) } }
        #expect(detect(Array("btsnoop\0".utf8)) == .btsnoop)
        #expect(detect(PcapngFixtures(bigEndian: false).sectionHeader()) == .pcapng)
        #expect(detect(PcapngFixtures(bigEndian: true).sectionHeader()) == .pcapng)
        for big in [false, true] {
            for ns in [false, true] { #expect(detect(PcapngFixtures(bigEndian: big).pcapHeader(nanoseconds: ns)) == .pcap) }
        }
        #expect(detect([0x0A, 0x0D, 0x0D]) == nil)
        #expect(detect(Array("GIF89a".utf8)) == nil)
    }
}
