import BandTestSupport
import BandWire
import Glibc
import Testing
@testable import BandTrace

@Suite struct PcapngReaderTests {
    static let resetCommand = bytes("01 03 0c 00")
    static let resetComplete = bytes("04 0e 04 01 03 0c 00")
    static let le = PcapngFixtures(bigEndian: false)
    static let be = PcapngFixtures(bigEndian: true)

    /// SHB (28) + IDB (20) + two EPBs: the smallest useful file.
    static func twoPackets(_ f: PcapngFixtures) -> [UInt8] {
        f.sectionHeader() + f.interface(linkType: 201)
            + f.enhancedPacket(timestamp: 1_000_000, PcapngFixtures.h4WithPseudoHeader(received: false, type: 1, Array(resetCommand.dropFirst())))
            + f.enhancedPacket(timestamp: 1_000_250, PcapngFixtures.h4WithPseudoHeader(received: true, type: 4, Array(resetComplete.dropFirst())))
    }

    // MARK: Blocks

    @Test(arguments: [false, true])
    func enhancedPacketsCarryIndexOffsetTimeAndDataInEitherByteOrder(bigEndian: Bool) {
        let f = PcapngFixtures(bigEndian: bigEndian)
        let (packets, error) = readPackets(Self.twoPackets(f), as: PcapngBlockParser.self)
        #expect(error == nil)
        #expect(packets.count == 2)
        #expect(packets[0].index == 0 && packets[0].offset == 28 + 20)
        #expect(packets[1].index == 1 && packets[1].offset == 28 + 20 + 32 + 8)
        #expect(packets[0].linkType == 201 && packets[0].micros == 1_000_000)
        #expect(packets[1].micros == 1_000_250)
        #expect(packets[0].data == [0, 0, 0, 0] + Self.resetCommand)
        #expect(packets[1].data == [0, 0, 0, 1] + Self.resetComplete)
    }

    @Test func bothByteOrdersGiveTheSamePackets() {
        let little = readPackets(Self.twoPackets(Self.le), as: PcapngBlockParser.self).packets
        let big = readPackets(Self.twoPackets(Self.be), as: PcapngBlockParser.self).packets
        #expect(little.map(\.data) == big.map(\.data))
        #expect(little.map(\.micros) == big.map(\.micros))
        #expect(little.map(\.offset) == big.map(\.offset))
    }

    @Test func interfacesKeepTheirOwnLinkTypeAndTimestampResolution() {
        let f = Self.le
        let file = f.sectionHeader()
            + f.interface(linkType: 201)                                   // 10^-6 (default)
            + f.interface(linkType: 254, tsresol: 9)                       // 10^-9
            + f.interface(linkType: 1, tsresol: 0x8A)                      // 2^-10
            + f.interface(linkType: 187, tsresol: 3, tsoffset: 1_700_000_000)  // 10^-3, plus an offset in seconds
            + f.enhancedPacket(interface: 0, timestamp: 1_764_460_800_123_456, [0, 0, 0, 0, 1, 3, 0x0c, 0])
            + f.enhancedPacket(interface: 1, timestamp: 1_764_460_800_123_456_789, [0, 0, 0, 2, 3, 0x0c, 0])
            + f.enhancedPacket(interface: 2, timestamp: 3 << 10 | 512, [0xAA])
            + f.enhancedPacket(interface: 3, timestamp: 1_234, [1, 3, 0x0c, 0])
        let (packets, error) = readPackets(file, as: PcapngBlockParser.self)
        #expect(error == nil)
        #expect(packets.map(\.interface) == [0, 1, 2, 3])
        #expect(packets.map(\.linkType) == [201, 254, 1, 187])
        #expect(packets[0].micros == 1_764_460_800_123_456)
        #expect(packets[1].micros == 1_764_460_800_123_456)       // nanoseconds rounded down
        #expect(packets[2].micros == 3_500_000)                   // 3.5 s in 1/1024 s units
        #expect(packets[3].micros == 1_700_000_001_234_000)       // 1.234 s + offset
    }

    @Test func simplePacketBelongsToInterfaceZeroIsCutToItsSnapLengthAndHasNoTime() {
        let f = Self.le
        let file = f.sectionHeader() + f.interface(linkType: 201, snapLength: 6)
            + f.simplePacket([0, 0, 0, 0, 1, 3, 0x0c, 0])
        let (packets, error) = readPackets(file, as: PcapngBlockParser.self)
        #expect(error == nil)
        #expect(packets.count == 1)
        #expect(packets[0].data == [0, 0, 0, 0, 1, 3])
        #expect(packets[0].micros == 0 && packets[0].interface == 0)
    }

    @Test func obsoletePacketBlockIsReadLikeAnEnhancedOne() {
        let f = Self.be
        let file = f.sectionHeader() + f.interface(linkType: 201) + f.obsoletePacket(timestamp: 42, [0, 0, 0, 1, 4, 0x0e, 0])
        let (packets, error) = readPackets(file, as: PcapngBlockParser.self)
        #expect(error == nil)
        #expect(packets.map(\.data) == [[0, 0, 0, 1, 4, 0x0e, 0]])
        #expect(packets[0].micros == 42)
    }

    @Test func otherBlocksAreSkippedButCountedInTheBlockIndex() {
        let f = Self.le
        let nameResolution = f.block(4, f.u16(1) + f.u16(8) + [192, 168, 0, 1] + Array("band".utf8) + f.u16(0) + f.u16(0))
        let statistics = f.block(5, f.u32(0) + f.u32(0) + f.u32(7))
        let custom = f.block(0x0BAD, f.u32(32473) + Array("private enterprise data".utf8))
        let unknown = f.block(0x0000_0F0F, [1, 2, 3, 4, 5, 6, 7, 8])
        let head = f.sectionHeader() + nameResolution + f.interface(linkType: 201) + statistics + custom + unknown
        let file = head + f.enhancedPacket(timestamp: 7, [0, 0, 0, 0, 1, 3, 0x0c, 0]) + f.block(0x4000_0BAD, f.u32(1))
        let (packets, error) = readPackets(file, as: PcapngBlockParser.self)
        #expect(error == nil)
        #expect(packets.count == 1 && packets[0].index == 0 && packets[0].offset == head.count)
        // A broken length in a skipped block names that block (index 6: SHB, NRB, IDB, ISB, custom, unknown, EPB, ...).
        let broken = head + f.enhancedPacket(timestamp: 7, [0, 0, 0, 0]) + f.block(5, f.u32(0), trailingLength: 99)
        let (_, brokenError) = readPackets(broken, as: PcapngBlockParser.self)
        #expect(brokenError == CaptureFileError(.pcapng, .blockLengthMismatch(leading: 16, trailing: 99), blockIndex: 7,
                                                offset: head.count + 32 + 4))
    }

    @Test func everySectionHasItsOwnByteOrderAndInterfaces() {
        let second = Self.be.sectionHeader() + Self.be.interface(linkType: 254, tsresol: 9)
            + Self.be.enhancedPacket(timestamp: 5_000, PcapngFixtures.monitor(adapter: 1, opcode: 2, [3, 0x0c, 0]))
        let file = Self.twoPackets(Self.le) + second
        let (packets, error) = readPackets(file, as: PcapngBlockParser.self)
        #expect(error == nil)
        #expect(packets.map(\.index) == [0, 1, 2])
        #expect(packets[2].linkType == 254 && packets[2].micros == 5 && packets[2].interface == 0)
        // Interface 1 of the first section does not exist in the second.
        let stale = Self.le.sectionHeader() + Self.le.interface(linkType: 201) + Self.le.interface(linkType: 201)
            + Self.le.sectionHeader() + Self.le.interface(linkType: 201)
        let staleFile = stale + Self.le.enhancedPacket(interface: 1, timestamp: 0, [0, 0, 0, 0, 1])
        #expect(readPackets(staleFile, as: PcapngBlockParser.self).error
                == CaptureFileError(.pcapng, .unknownInterface(id: 1, described: 1), blockIndex: 5, offset: stale.count))
    }

    // MARK: Errors

    @Test func fileThatDoesNotStartWithASectionHeaderIsNotPcapng() {
        let f = Self.le
        #expect(readPackets(f.interface(linkType: 201), as: PcapngBlockParser.self).error
                == CaptureFileError(.pcapng, .badMagic, blockIndex: 0, offset: 0))
        #expect(readPackets(Array("btsnoop\0".utf8), as: PcapngBlockParser.self).error?.kind == .badMagic)
        #expect(readPackets([], as: PcapngBlockParser.self).error?.kind == .truncatedFileHeader(available: 0))
    }

    @Test func sectionHeaderChecks() {
        var badOrder = Self.le.sectionHeader()
        badOrder[8] = 0x11
        #expect(readPackets(badOrder, as: PcapngBlockParser.self).error
                == CaptureFileError(.pcapng, .badByteOrderMagic(0x1A2B_3C11), blockIndex: 0, offset: 8))
        #expect(readPackets(Self.be.sectionHeader(major: 2, minor: 0), as: PcapngBlockParser.self).error
                == CaptureFileError(.pcapng, .unsupportedVersion(major: 2, minor: 0), blockIndex: 0, offset: 12))
        let short = Self.le.block(0x0A0D_0D0A, Self.le.u32(0x1A2B_3C4D) + [1, 0, 0, 0])
        #expect(readPackets(short, as: PcapngBlockParser.self).error?.kind == .blockTooShort(type: 0x0A0D_0D0A, length: 20))
    }

    @Test func blockLengthsAreCheckedBeforeTheyAreTrusted() {
        let f = Self.le
        let head = f.sectionHeader() + f.interface(linkType: 201)
        func error(_ tail: [UInt8]) -> CaptureFileError? { readPackets(head + tail, as: PcapngBlockParser.self).error }
        #expect(error(f.u32(6) + f.u32(13) + [UInt8](repeating: 0, count: 20)) == CaptureFileError(.pcapng, .invalidBlockLength(13), blockIndex: 2, offset: 48))
        #expect(error(f.u32(6) + f.u32(8) + [UInt8](repeating: 0, count: 20))?.kind == .invalidBlockLength(8))
        #expect(error(f.u32(6) + f.u32(0x7FFF_FFF0)) == CaptureFileError(.pcapng, .blockTooLong(length: 0x7FFF_FFF0, limit: PcapngBlockParser.maximumBlockLength),
                                                                     blockIndex: 2, offset: 48))
        #expect(error(f.enhancedPacket(timestamp: 0, [1, 2, 3, 4], trailingLength: 40))
                == CaptureFileError(.pcapng, .blockLengthMismatch(leading: 36, trailing: 40), blockIndex: 2, offset: 48))
        #expect(error(f.block(6, f.u32(0) + f.u32(0) + f.u32(0)))?.kind == .blockTooShort(type: 6, length: 24))
        #expect(error(f.enhancedPacket(timestamp: 0, [1, 2, 3, 4], captured: 5))?.kind == .capturedLengthExceedsBlock(captured: 5, available: 4))
        #expect(error(f.enhancedPacket(timestamp: 0, [1, 2, 3, 4], captured: 300_000))?.kind == .packetTooLong(captured: 300_000, limit: 262_144))
        #expect(error(f.enhancedPacket(interface: 3, timestamp: 0, [1]))?.kind == .unknownInterface(id: 3, described: 1))
    }

    @Test func interfaceOptionsAreBounded() {
        let f = Self.le
        let overrun = f.block(1, f.u16(201) + f.u16(0) + f.u32(0) + f.u16(2) + f.u16(40) + [0, 0, 0, 0])
        #expect(readPackets(f.sectionHeader() + overrun, as: PcapngBlockParser.self).error
                == CaptureFileError(.pcapng, .malformedOption(code: 2, length: 40), blockIndex: 1, offset: 28 + 16))
        #expect(readPackets(f.sectionHeader() + f.interface(linkType: 201, tsresol: 0xC0), as: PcapngBlockParser.self).error?.kind
                == .unsupportedTimestampResolution(0xC0))
        #expect(readPackets(f.sectionHeader() + f.interface(linkType: 201, tsresol: 26), as: PcapngBlockParser.self).error?.kind
                == .unsupportedTimestampResolution(26))
        let many = f.sectionHeader() + Array([[UInt8]](repeating: f.interface(linkType: 201), count: 1025).joined())
        #expect(readPackets(many, as: PcapngBlockParser.self).error?.kind == .tooManyInterfaces(limit: 1024))
    }

    @Test func errorDescriptionNamesBlockAndOffset() {
        let error = CaptureFileError(.pcapng, .blockLengthMismatch(leading: 36, trailing: 40), blockIndex: 2, offset: 48)
        #expect(error.description == "pcapng block 2 at byte offset 48: block total length 36 at the start but 40 at the end")
    }

    // MARK: Streaming

    static func streamAll(_ file: [UInt8], chunk: Int, bufferSize: Int = CaptureFileReader<PcapngBlockParser>.defaultBufferSize)
        -> (data: [[UInt8]], error: CaptureFileError?) {
        let script = BtsnoopReaderTests.ScriptedFile(file, chunk: chunk)
        var out: [[UInt8]] = []
        do throws(CaptureFileError) {
            let reader = try PcapngFileReader(fileDescriptor: 42, ownsDescriptor: false, bufferSize: bufferSize, calls: script.calls)
            while let packet = try reader.nextPacket() { out.append(Array(packet.data)) }
            return (out, nil)
        } catch {
            return (out, error)
        }
    }

    static var richFile: [UInt8] {
        let f = Self.be
        return Self.twoPackets(f) + f.block(4, [1, 2, 3, 4, 5]) + f.simplePacket([0, 0, 0, 1, 4, 0x0e, 0])
            + f.block(0x0BAD, [UInt8](repeating: 7, count: 50)) + f.enhancedPacket(timestamp: 9, [0, 0, 0, 1, 4])
    }

    @Test func dripFedOneByteAtATimeWithEINTRGivesTheSamePackets() {
        let whole = readPackets(Self.richFile, as: PcapngBlockParser.self)
        #expect(whole.error == nil && whole.packets.count == 4)
        for chunk in [1, 3, 13] {
            let (data, error) = Self.streamAll(Self.richFile, chunk: chunk)
            #expect(error == nil)
            #expect(data == whole.packets.map(\.data), "chunk \(chunk)")
        }
    }

    @Test(arguments: [false, true])
    func truncationAtEveryOffsetEitherEndsCleanlyOrNamesTheBlock(bigEndian: Bool) {
        let f = PcapngFixtures(bigEndian: bigEndian)
        let blocks = [f.sectionHeader(), f.interface(linkType: 201, tsresol: 9),
                      f.enhancedPacket(timestamp: 1, [0, 0, 0, 0, 1, 3, 0x0c, 0]), f.block(4, [1, 2, 3, 4, 5, 6]),
                      f.enhancedPacket(timestamp: 2, [0, 0, 0, 1, 4])]
        let file = Array(blocks.joined())
        var boundaries = [0]
        for block in blocks { boundaries.append(boundaries.last! + block.count) }
        let packetEnds = [boundaries[3], boundaries[5]]
        for length in 0...file.count {
            let prefix = Array(file.prefix(length))
            let memory = readPackets(prefix, as: PcapngBlockParser.self)
            let streamed = Self.streamAll(prefix, chunk: 5)
            #expect(memory.packets.count == packetEnds.filter { $0 <= length }.count, "prefix \(length)")
            #expect(streamed.data == memory.packets.map(\.data), "prefix \(length)")
            #expect(streamed.error == memory.error, "prefix \(length)")
            if boundaries.contains(length) && length > 0 {
                #expect(memory.error == nil, "prefix \(length)")
            } else {
                let block = boundaries.lastIndex { $0 <= length }!
                #expect(memory.error?.isTruncation == true, "prefix \(length)")
                #expect(memory.error?.blockIndex == block, "prefix \(length)")
                #expect(memory.error?.offset == boundaries[block], "prefix \(length)")
            }
        }
    }

    @Test func skippedBlocksLargerThanTheBufferStreamPast() throws {
        // A 3 MiB custom block between two packets, through the smallest buffer the framer allows.
        let f = Self.le
        let file = Self.twoPackets(f) + f.block(0x0BAD, [UInt8](repeating: 0x55, count: 3 << 20)) + f.enhancedPacket(timestamp: 3, [0, 0, 0, 1, 4])
        let (data, error) = Self.streamAll(file, chunk: 1 << 16, bufferSize: PcapngBlockParser.maximumBlockLength)
        #expect(error == nil)
        #expect(data.count == 3)
    }

    @Test func readErrorIsReportedWithTheFilePosition() {
        let file = BtsnoopReaderTests.RepeatingFile(header: Array(Self.twoPackets(Self.le).prefix(60)), record: [], count: 0)
        var calls = file.calls
        let first = calls.read
        calls.read = { [file] fd, buffer, count in
            if file.served < file.total { return first(fd, buffer, count) }
            errno = EIO
            return -1
        }
        do {
            let reader = try PcapngFileReader(fileDescriptor: 3, ownsDescriptor: false, bufferSize: 1 << 20, calls: calls)
            _ = try reader.nextPacket()
            Issue.record("expected an I/O error")
        } catch {
            #expect(error == CaptureFileError(.pcapng, .system(call: "read", errno: EIO), blockIndex: 2, offset: 48))
        }
    }
}
