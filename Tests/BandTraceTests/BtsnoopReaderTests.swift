import BandKitSystem
import BandTestSupport
import BandWire
import Glibc
import Testing
@testable import BandTrace

@Suite struct BtsnoopReaderTests {
    typealias F = TraceFixtures

    static let resetCommand = bytes("01 03 0c 00")
    static let resetComplete = bytes("04 0e 04 01 03 0c 00")

    static var twoRecords: [UInt8] {
        F.fileHeader() + F.record(resetCommand, flags: 2, unixMicroseconds: 1_000_000)
            + F.record(resetComplete, flags: 3, unixMicroseconds: 1_000_250)
    }

    @Test func readsRecordsWithIndexOffsetTimeAndData() {
        let (records, error) = readAll(Self.twoRecords)
        #expect(error == nil)
        #expect(records.count == 2)
        #expect(records[0].data == Self.resetCommand)
        #expect(records[0].index == 0 && records[0].offset == 16)
        #expect(records[1].index == 1 && records[1].offset == 16 + 24 + 4)
        #expect(records[1].header.unixMicroseconds == 1_000_250)
        #expect(records[1].header.flags == 3)
    }

    @Test func emptyFileIsATruncatedHeader() {
        #expect(readAll([]).error == BtsnoopError(.truncatedFileHeader(available: 0), recordIndex: nil, offset: 0))
    }

    @Test func badMagicIsReportedAtOffsetZero() {
        let file = Array("pcap-ng!".utf8) + [0, 0, 0, 1, 0, 0, 3, 0xea]
        #expect(readAll(file).error == BtsnoopError(.badMagic, recordIndex: nil, offset: 0))
    }

    @Test func shortFileThatIsNotBtsnoopSaysBadMagicNotTruncated() {
        #expect(readAll(Array("hello".utf8)).error?.kind == .badMagic)
    }

    @Test func badVersionNamesTheVersionAndItsOffset() {
        #expect(readAll(F.fileHeader(version: 2)).error == BtsnoopError(.unsupportedVersion(2), recordIndex: nil, offset: 8))
    }

    @Test func unknownDatalinksAreRefusedByName() {
        for link: UInt32 in [1003, 1004, 2002, 7] {
            #expect(readAll(F.fileHeader(datalink: link)).error
                    == BtsnoopError(.unsupportedDatalink(BtsnoopDatalink(rawValue: link)), recordIndex: nil, offset: 12))
        }
    }

    @Test func truncatedFileHeaderSaysHowMuchWasThere() {
        #expect(readAll(Array(F.fileHeader().prefix(11))).error
                == BtsnoopError(.truncatedFileHeader(available: 11), recordIndex: nil, offset: 0))
    }

    @Test func truncatedRecordHeaderDeliversEarlierRecordsFirst() {
        let file = Self.twoRecords + Array(F.record([1, 2, 3], flags: 0).prefix(10))
        let (records, error) = readAll(file)
        #expect(records.count == 2)
        #expect(error == BtsnoopError(.truncatedRecordHeader(available: 10), recordIndex: 2, offset: Self.twoRecords.count))
    }

    @Test func truncatedRecordDataNamesExpectedAndPresentBytes() {
        let file = Self.twoRecords + Array(F.record(bytes("02 40 20 05 00 01 00 04 00 1b"), flags: 1).dropLast(3))
        let (records, error) = readAll(file)
        #expect(records.count == 2)
        #expect(error == BtsnoopError(.truncatedRecordData(expected: 10, available: 7), recordIndex: 2, offset: Self.twoRecords.count))
    }

    @Test func includedLongerThanOriginalIsRefused() {
        let file = F.fileHeader() + F.record(Self.resetCommand, flags: 2, original: 3)
        #expect(readAll(file).error == BtsnoopError(.includedLengthExceedsOriginal(included: 4, original: 3), recordIndex: 0, offset: 16))
    }

    @Test func absurdLengthIsRefusedBeforeAnyDataIsRead() {
        let file = F.fileHeader() + F.record([], flags: 0, original: 0x7FFF_FFFF, included: 0x7FFF_FFF0)
        #expect(readAll(file).error == BtsnoopError(.recordTooLong(included: 0x7FFF_FFF0, limit: 262_144), recordIndex: 0, offset: 16))
    }

    @Test func recordShorterThanOriginalIsDeliveredAndMarkedTruncated() throws {
        let file = F.fileHeader() + F.record(Self.resetCommand, flags: 2, original: 40)
        try file.withUnsafeBytes { raw in
            var reader = try BtsnoopMemoryReader(bytes: raw)
            let record = try #require(try reader.next())
            #expect(record.isTruncated)
            #expect(try reader.next() == nil)
        }
    }

    @Test func errorDescriptionNamesRecordAndOffset() {
        let error = BtsnoopError(.truncatedRecordData(expected: 10, available: 7), recordIndex: 2, offset: 92)
        #expect(error.description == "record 2 at byte offset 92: file ends inside record data (header announces 10 bytes, 7 present)")
    }

    // MARK: Streaming through a fixed buffer

    /// System calls over an in-memory file that hand out at most `chunk` bytes per read and
    /// fail every other call with EINTR, to prove the reader refills and retries correctly.
    final class ScriptedFile: @unchecked Sendable {
        let bytes: [UInt8]
        let chunk: Int
        var position = 0
        var reads = 0
        var interrupt = true
        init(_ bytes: [UInt8], chunk: Int) { self.bytes = bytes; self.chunk = chunk }

        var calls: SystemCalls {
            var calls = SystemCalls.live
            calls.open = { _, _, _ in 42 }
            calls.read = { [self] _, buffer, count in
                reads += 1
                interrupt.toggle()
                if interrupt { errno = EINTR; return -1 }
                let n = min(count, chunk, bytes.count - position)
                for i in 0..<n { buffer!.storeBytes(of: bytes[position + i], toByteOffset: i, as: UInt8.self) }
                position += n
                return n
            }
            calls.write = { _, _, count in count }
            calls.close = { _ in 0 }
            return calls
        }
    }

    func streamAll(_ file: [UInt8], chunk: Int) -> (data: [[UInt8]], error: BtsnoopError?) {
        let script = ScriptedFile(file, chunk: chunk)
        var out: [[UInt8]] = []
        do throws(BtsnoopError) {
            let reader = try BtsnoopFileReader(fileDescriptor: 42, ownsDescriptor: false,
                                               bufferSize: BtsnoopFileReader.defaultBufferSize, calls: script.calls)
            while let record = try reader.next() { out.append(Array(record.data)) }
            return (out, nil)
        } catch {
            return (out, error)
        }
    }

    @Test func dripFedOneByteAtATimeWithEINTRGivesTheSameRecords() {
        let (data, error) = streamAll(Self.twoRecords, chunk: 1)
        #expect(error == nil)
        #expect(data == [Self.resetCommand, Self.resetComplete])
    }

    @Test func truncationAtEveryOffsetEitherEndsCleanlyOrNamesTheRecord() {
        let file = Self.twoRecords
        let boundaries = [16, 16 + 28, file.count]
        for length in 0...file.count {
            let (data, error) = streamAll(Array(file.prefix(length)), chunk: 7)
            let complete = boundaries.filter { $0 <= length }.count - 1
            #expect(data.count == max(0, complete), "prefix \(length)")
            if boundaries.contains(length) {
                #expect(error == nil, "prefix \(length)")
            } else {
                #expect(error != nil, "prefix \(length)")
                if length > 16 { #expect(error?.recordIndex == complete, "prefix \(length)") }
            }
        }
    }

    /// Serves a generated file of `count` copies of `record` after `header`, without holding it.
    final class RepeatingFile: @unchecked Sendable {
        let header: [UInt8], record: [UInt8], total: Int
        var served = 0
        init(header: [UInt8], record: [UInt8], count: Int) {
            self.header = header
            self.record = record
            total = header.count + count * record.count
        }
        var calls: SystemCalls {
            var calls = SystemCalls.live
            calls.open = { _, _, _ in 3 }
            calls.read = { [self] _, buffer, wanted in
                let n = min(wanted, total - served)
                for i in 0..<n {
                    let position = served + i
                    let byte = position < header.count ? header[position] : record[(position - header.count) % record.count]
                    buffer!.storeBytes(of: byte, toByteOffset: i, as: UInt8.self)
                }
                served += n
                return n
            }
            calls.write = { _, _, c in c }
            calls.close = { _ in 0 }
            return calls
        }
    }

    @Test func bufferIsReusedSoManyLargeRecordsNeedNoMoreMemory() throws {
        // 300 records of 60 000 bytes (18 MB) through a buffer that holds only the largest record.
        var record = F.record([UInt8](repeating: 0xAB, count: 60_000), flags: 0)
        record[24] = 0x02
        let file = RepeatingFile(header: F.fileHeader(), record: record, count: 300)
        let reader = try BtsnoopFileReader(fileDescriptor: 3, ownsDescriptor: false,
                                           bufferSize: BtsnoopRecordHeader.size + BtsnoopRecordParser.maximumRecordLength, calls: file.calls)
        var seen = 0
        while let next = try reader.next() {
            #expect(next.data.count == 60_000)
            seen += 1
        }
        #expect(seen == 300)
        #expect(reader.bytesRead == file.total)
    }

    @Test func readErrorOtherThanEINTRIsReportedWithTheFilePosition() {
        // The file stops after 20 bytes and the next read fails with EIO.
        let file = RepeatingFile(header: Array(Self.twoRecords.prefix(20)), record: [], count: 0)
        var calls = file.calls
        let first = calls.read
        calls.read = { [file] fd, buffer, count in
            if file.served < file.total { return first(fd, buffer, count) }
            errno = EIO
            return -1
        }
        do {
            let reader = try BtsnoopFileReader(fileDescriptor: 3, ownsDescriptor: false, bufferSize: 1 << 20, calls: calls)
            _ = try reader.next()
            Issue.record("expected an I/O error")
        } catch {
            #expect(error == BtsnoopError(.system(call: "read", errno: EIO), recordIndex: 0, offset: 16))
        }
    }

    @Test func missingFileIsAnOpenError() {
        #expect(throws: BtsnoopError(.system(call: "open", errno: ENOENT), recordIndex: nil, offset: 0)) {
            _ = try BtsnoopFileReader(path: "/nonexistent/btsnoop_hci.log")
        }
    }
}
