import BandKitSystem
@testable import BandReader
import BandWire
import Foundation
import HealthStore
import Testing

/// The spool's file format: every field round-trips, and damage — a torn tail, a flipped bit, a
/// foreign length, garbage between records, a cut at every offset — is skipped and counted,
/// never a crash and never a wrong entry.
@Suite struct SpoolFileTests {
    static func fullMinute() -> LiveMinute {
        var minute = LiveMinute(start: 1_764_633_600, utcOffsetSeconds: -9000)
        minute.activity = CounterDelta(steps: 97, distanceDecimetres: 712, energyDecikilocalories: 43)
        minute.heartRate.add(71)
        minute.heartRate.add(88)
        minute.heartRate.addWithoutContact()
        minute.rrIntervals = [820, 1010, 65535]
        minute.energyKilojoules = 12
        minute.part = -1_764_633_600_123
        minute.countedSteps = 31
        minute.stepCountEnd = StepCountState(total: 9120, time: 1_764_633_659, localDay: -3)
        return minute
    }

    static let entries: [SpoolEntry] = [
        .minute(fullMinute()),
        .minute(LiveMinute(start: 1_764_633_660, utcOffsetSeconds: nil)),   // every optional field absent
        .stepGap(StepGap(steps: 1200, from: 1_764_600_000, to: 1_764_633_600, reason: .midnightWhileAway, utcOffsetSeconds: 3600,
                         total: StepCountState(total: 1200, time: 1_764_633_600, localDay: 20_424))),
        .battery(percent: 100, time: 1_764_633_700),
        .battery(percent: 0, time: 0),
    ]

    static func file(_ entries: [SpoolEntry] = entries) -> [UInt8] { SpoolFile.header + entries.flatMap(SpoolFile.encode) }

    @Test func everyEntryAndEveryOptionalFieldRoundTrips() throws {
        let contents = try SpoolFile.decode(Self.file())
        #expect(contents.entries == Self.entries)
        #expect(contents.isClean)
        #expect(contents.minuteCount == 2)
        for reason in [StepCountTracker.GapReason.firstSight, .away, .rebootWhileAway, .midnightWhileAway] {
            let gap = SpoolEntry.stepGap(StepGap(steps: 1, from: 5, to: 5, reason: reason, utcOffsetSeconds: -43200,
                                                 total: StepCountState(total: 1, time: 5, localDay: 0)))
            #expect(try SpoolFile.decode(Self.file([gap])).entries == [gap])
        }
    }

    @Test func theRecordLayoutIsTheDocumentedOne() {
        let record = SpoolFile.encode(.battery(percent: 55, time: 0x0102_0304))
        #expect(Array(record.prefix(9)) == [0xB5, 3, 5, 0, 55, 0x04, 0x03, 0x02, 0x01])
        #expect(record.count == 8 + 5)
        let crc = CRC32.checksum(record.prefix(9))
        #expect(Array(record.suffix(4)) == [UInt8(crc & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 24)])
        #expect(SpoolFile.encode(.minute(LiveMinute(start: 0, utcOffsetSeconds: nil))).count == 8 + 70)
        #expect(SpoolFile.encode(.minute(Self.fullMinute())).count == 8 + 70 + 6)
    }

    @Test func aCutAtEveryOffsetKeepsTheWholeRecordsBeforeItAndCountsTheTornTail() throws {
        let file = Self.file()
        let boundaries = Self.entries.reduce(into: [SpoolFile.header.count]) { $0.append($0.last! + SpoolFile.encode($1).count) }
        for cut in SpoolFile.header.count...file.count {
            let contents = try SpoolFile.decode(Array(file.prefix(cut)))
            let whole = boundaries.lastIndex { $0 <= cut }!
            #expect(contents.entries == Array(Self.entries.prefix(whole)), "cut at \(cut)")
            #expect(contents.tornTailBytes == cut - boundaries[whole], "cut at \(cut)")
            #expect(contents.damagedStretches == 0, "cut at \(cut)")
        }
        for cut in 0..<SpoolFile.header.count {
            #expect(throws: SpoolFile.FileError.notASpool) { try SpoolFile.decode(Array(file.prefix(cut))) }
        }
    }

    @Test func aFlippedBitAnywhereLosesOnlyItsOwnRecord() throws {
        let file = Self.file()
        var start = SpoolFile.header.count
        for (index, entry) in Self.entries.enumerated() {
            let length = SpoolFile.encode(entry).count
            for offset in start..<start + length {
                var damaged = file
                damaged[offset] ^= 0x10
                let contents = try SpoolFile.decode(damaged)
                var expected = Self.entries
                expected.remove(at: index)
                #expect(contents.entries == expected, "bit flipped at \(offset)")
                // A flip that lengthens the last record past the end of the file looks exactly
                // like a write torn by a crash, and is counted as that.
                let stretches = contents.damagedStretches + (contents.tornTailBytes > 0 ? 1 : 0)
                #expect(stretches == 1 && contents.damagedBytes + contents.tornTailBytes == length, "bit flipped at \(offset)")
                #expect(contents.firstDamageOffset == start)
            }
            start += length
        }
    }

    @Test func garbageBetweenRecordsIsSkippedAndCounted() throws {
        var file = SpoolFile.header + SpoolFile.encode(Self.entries[0])
        let garbage: [UInt8] = [0xB5, 0x01, 0xFF, 0xFF, 0x00, 0xB5, 0xB5, 0x03, 0x05, 0x00, 0x42]
        file += garbage + SpoolFile.encode(Self.entries[3])
        let contents = try SpoolFile.decode(file)
        #expect(contents.entries == [Self.entries[0], Self.entries[3]])
        #expect(contents.damagedStretches == 1 && contents.damagedBytes == garbage.count)
        #expect(try SpoolFile.decode(SpoolFile.header + garbage).entries == [])
    }

    /// Where each of `entries`' records starts and ends in `file(entries)`.
    static func recordRanges(_ entries: [SpoolEntry] = entries) -> [Range<Int>] {
        var start = SpoolFile.header.count
        return entries.map { entry in
            let length = SpoolFile.encode(entry).count
            defer { start += length }
            return start..<start + length
        }
    }

    /// Garbage a reader meets in practice and by malice: a lone marker, a header claiming the
    /// largest payload (it swallows the records after it unless the reader resynchronises),
    /// a run of markers, zeros, and a record's first half.
    static let garbage: [[UInt8]] = [
        [0xB5],
        [0xB5, 0x01, 0xF6, 0x04],
        [0xB5, 0xB5, 0xB5, 0x03, 0x05, 0x00],
        [UInt8](repeating: 0, count: 9),
        Array(SpoolFile.encode(.battery(percent: 7, time: 7)).prefix(7)),
    ]

    @Test func garbageInsertedAtEveryOffsetLosesOnlyTheRecordItSplits() throws {
        let file = Self.file()
        let ranges = Self.recordRanges()
        for garbage in Self.garbage {
            for offset in SpoolFile.header.count...file.count {
                let damaged = Array(file[..<offset]) + garbage + Array(file[offset...])
                let contents = try SpoolFile.decode(damaged)
                // Every record the garbage does not fall strictly inside is read. The one it
                // splits is lost, unless the garbage ends with that record's own first bytes
                // (a marker after its marker, say), which leaves the record whole behind it.
                let split = ranges.firstIndex { $0.lowerBound < offset && offset < $0.upperBound }
                var expected = Self.entries
                if let split, !Self.contains(damaged, SpoolFile.encode(Self.entries[split])) { expected.remove(at: split) }
                #expect(contents.entries == expected, "\(garbage) inserted at \(offset)")
                let kept = contents.entries.reduce(0) { $0 + SpoolFile.encode($1).count }
                #expect(contents.damagedBytes + contents.tornTailBytes == damaged.count - SpoolFile.header.count - kept,
                        "\(garbage) inserted at \(offset)")
            }
        }
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        haystack.indices.contains { haystack[$0...].starts(with: needle) }
    }

    @Test func aStretchOverwrittenAtEveryOffsetLosesOnlyTheRecordsItTouches() throws {
        let file = Self.file()
        let ranges = Self.recordRanges()
        for garbage in Self.garbage {
            for offset in SpoolFile.header.count..<(file.count - garbage.count) {
                var damaged = file
                damaged.replaceSubrange(offset..<offset + garbage.count, with: garbage)
                guard damaged != file else { continue }
                let touched = offset..<offset + garbage.count
                let changed = touched.filter { damaged[$0] != file[$0] }
                let contents = try SpoolFile.decode(damaged)
                let expected = zip(Self.entries, ranges).filter { entry in !changed.contains { entry.1.contains($0) } }.map(\.0)
                #expect(contents.entries == expected, "\(garbage) written over \(offset)")
            }
        }
    }

    @Test func recoveryTriesOnlyMarkerBytesNotEveryOffset() {
        // Two records around 64 KiB of damage with 3 marker bytes in it: the reader tries the
        // two records, the damage's first byte and the 3 markers, not 65,536 offsets.
        var garbage = [UInt8](repeating: 0x5B, count: 1 << 16)
        for at in [100, 30_000, 65_000] { garbage[at] = SpoolFile.marker }
        let records = SpoolFile.encode(Self.entries[3]) + garbage + SpoolFile.encode(Self.entries[0])
        var examined = 0
        let contents = records.withUnsafeBytes { SpoolFile.decodeRecords($0, from: 0, examined: &examined) }
        #expect(contents.entries == [Self.entries[3], Self.entries[0]])
        #expect(contents.damagedStretches == 1 && contents.damagedBytes == garbage.count)
        #expect(examined == 2 + 1 + 3)
        // Damage running to the end of the file: one try for its start, none after.
        examined = 0
        let tail = (SpoolFile.encode(Self.entries[3]) + [UInt8](repeating: 0, count: 1 << 16)).withUnsafeBytes {
            SpoolFile.decodeRecords($0, from: 0, examined: &examined)
        }
        #expect(tail.entries == [Self.entries[3]] && tail.damagedBytes == 1 << 16 && examined == 2)
    }

    @Test func payloadsThatBreakTheRulesAreRefusedWithTheirOffset() {
        func decode(_ kind: SpoolEntry.Kind, _ payload: [UInt8]) -> ParseError? {
            payload.withUnsafeBytes { raw -> ParseError? in
                var cursor = ByteCursor(raw)
                do throws(ParseError) { _ = try SpoolEntry(kind: kind.rawValue, parsing: &cursor); return nil } catch { return error }
            }
        }
        func payload(_ entry: SpoolEntry) -> [UInt8] { Array(SpoolFile.encode(entry).dropFirst(4).dropLast(4)) }
        var minute = payload(.minute(Self.fullMinute()))
        minute[0] = 1   // not a minute boundary
        #expect(decode(.minute, minute) == ParseError(.invalidValue, at: 0, field: "minute start"))
        minute = payload(.minute(Self.fullMinute()))
        minute[4] = 2   // a flag that is neither 0 nor 1
        #expect(decode(.minute, minute)?.offset == 4)
        minute = payload(.minute(Self.fullMinute()))
        minute[5...8] = [0xFF, 0xFF, 0xFF, 0x7F]   // a UTC offset of 68 years
        #expect(decode(.minute, minute) == ParseError(.invalidValue, at: 5, field: "UTC offset"))
        minute = payload(.minute(Self.fullMinute()))
        minute[29] = 200   // minimum above maximum
        #expect(decode(.minute, minute) == ParseError(.invalidValue, at: 21, field: "heart-rate readings"))
        minute = payload(.minute(Self.fullMinute()))
        minute[68...69] = [0x59, 0x02]   // 601 RR intervals
        #expect(decode(.minute, minute) == ParseError(.invalidValue, at: 68, field: "RR interval count"))
        #expect(decode(.minute, payload(.minute(Self.fullMinute())) + [0])?.kind == .trailingBytes)
        var gap = payload(Self.entries[2])
        gap[8...11] = [0, 0, 0, 0]   // ends before it starts
        #expect(decode(.stepGap, gap) == ParseError(.invalidValue, at: 8, field: "gap end"))
        #expect(decode(.battery, [101, 0, 0, 0, 0]) == ParseError(.invalidValue, at: 0, field: "battery percent"))
        #expect(decode(.battery, [50, 0, 0]) == ParseError(.truncated, at: 1, field: "battery time"))
    }
}

/// The spool on disk: private, fsynced, bounded, removed only after the store took it.
@Suite struct LiveSpoolTests {
    func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "spool-\(UUID().uuidString)"
        return path
    }

    @Test func appendsAreKeptInOrderInAPrivateFile() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let spool = LiveSpool(path: directory + "/state/spool/" + LiveSpool.fileName(band: "sim:/tmp/band 1", store: "postgresql://gw@db/bandkit"))
        #expect(spool.path.hasSuffix("/sim__tmp_band_1-\(spool.path.suffix(22).prefix(16)).spool"))
        #expect(try spool.load().entries == [])
        #expect(try spool.append(Array(SpoolFileTests.entries.prefix(2))) == LiveSpool.Appended(kept: 2))
        #expect(try spool.append(Array(SpoolFileTests.entries.dropFirst(2))) == LiveSpool.Appended(kept: 3))
        #expect(try spool.load().entries == SpoolFileTests.entries)
        let file = try FileManager.default.attributesOfItem(atPath: spool.path)
        #expect((file[.posixPermissions] as? Int) == 0o600)
        let folder = try FileManager.default.attributesOfItem(atPath: directory + "/state/spool")
        #expect((folder[.posixPermissions] as? Int) == 0o700)
    }

    @Test func twoStoresGetTwoSpools() {
        #expect(LiveSpool.fileName(band: "AA:BB", store: "postgresql:///a") != LiveSpool.fileName(band: "AA:BB", store: "postgresql:///b"))
        #expect(LiveSpool.fileName(band: "AA:BB", store: "/x.sqlite") == LiveSpool.fileName(band: "AA:BB", store: "/x.sqlite"))
    }

    @Test func aFullSpoolKeepsWhatItHasAndCountsWhatItCouldNotTake() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let minute = SpoolEntry.minute(LiveMinute(start: 60, utcOffsetSeconds: 0))
        let record = SpoolFile.encode(minute).count
        let spool = LiveSpool(path: directory + "/b.spool", capacity: SpoolFile.header.count + 3 * record)
        #expect(try spool.append([minute, minute]) == LiveSpool.Appended(kept: 2))
        #expect(try spool.append([minute, minute, .battery(percent: 1, time: 2)]) == LiveSpool.Appended(kept: 1, dropped: 2, droppedMinutes: 1))
        #expect(try spool.load().minuteCount == 3)
        let size = try FileManager.default.attributesOfItem(atPath: spool.path)[.size] as? Int
        #expect(size == spool.capacity)
    }

    @Test func replayRemovesTheFileOnlyAfterTheStoreTookIt() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let spool = LiveSpool(path: directory + "/b.spool")
        _ = try spool.append(SpoolFileTests.entries)
        let down = HealthStoreError.database(DatabaseError(engine: .postgresql, sqlState: "08006", message: "no connection", sql: "BEGIN"))
        #expect(throws: LiveSpool.ReplayError<HealthStoreError>.self) {
            _ = try spool.replay { (_) throws(HealthStoreError) in throw down }
        }
        #expect(try spool.load().entries == SpoolFileTests.entries, "a failed replay leaves the spool as it was")
        var handed: [SpoolEntry] = []
        let replayed = try spool.replay { (contents) throws(HealthStoreError) in handed = contents.entries }
        #expect(handed == SpoolFileTests.entries && replayed.entries == handed)
        #expect(!FileManager.default.fileExists(atPath: spool.path))
        #expect(try spool.replay { (_) throws(HealthStoreError) in Issue.record("nothing to replay") }.entries == [])
    }

    @Test func aTornTailFromACrashIsCountedAndLaterAppendsAreStillRead() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let spool = LiveSpool(path: directory + "/b.spool")
        _ = try spool.append(Array(SpoolFileTests.entries.prefix(1)))
        // A crash tore the next append after 11 bytes.
        let torn = Array(SpoolFile.encode(SpoolFileTests.entries[1]).prefix(11))
        let handle = try #require(FileHandle(forWritingAtPath: spool.path))
        handle.seekToEndOfFile()
        handle.write(Data(torn))
        handle.closeFile()
        #expect(try spool.load().tornTailBytes == 11)
        _ = try spool.append([SpoolFileTests.entries[3]])
        let contents = try spool.load()
        #expect(contents.entries == [SpoolFileTests.entries[0], SpoolFileTests.entries[3]])
        #expect(contents.damagedStretches == 1 && contents.damagedBytes == 11)
    }

    @Test func aFileThatIsNotASpoolIsNamedNotRead() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Data("{\"bands\": []}".utf8).write(to: URL(fileURLWithPath: directory + "/b.spool"))
        let spool = LiveSpool(path: directory + "/b.spool")
        #expect(throws: LiveSpool.SpoolError(path: directory + "/b.spool", reason: "not a BandKit spool file (no BKSPOOL1 header)")) { try spool.load() }
    }
}
