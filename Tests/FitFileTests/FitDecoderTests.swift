import BandWire
import FitFile
import HealthTestSupport
import Testing

@Suite("FIT decoder")
struct FitDecoderTests {
    /// Bit by bit CRC-16/ARC (poly 0xA001 reflected, init 0): an independent check of the nibble table.
    static func referenceCRC(_ bytes: [UInt8]) -> UInt16 {
        var crc: UInt16 = 0
        for byte in bytes {
            crc ^= UInt16(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xA001 : crc >> 1 }
        }
        return crc
    }

    @Test func crcMatchesTheReferenceAndTheCheckValue() {
        #expect(FitCRC.checksum(Array("123456789".utf8)) == 0xBB3D)
        var generator = SystemRandomNumberGenerator()
        for length in [0, 1, 2, 13, 255] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(FitCRC.checksum(bytes) == Self.referenceCRC(bytes))
        }
    }

    static func messages(_ bytes: [UInt8]) throws(ParseError) -> [FitMessage] {
        var messages: [FitMessage] = []
        let result: Result<Void, ParseError> = bytes.withUnsafeBytes { raw in
            do throws(ParseError) {
                try FitDecoder.decode(raw) { message throws(ParseError) in messages.append(message) }
                return .success(())
            } catch { return .failure(error) }
        }
        try result.get()
        return messages
    }

    @Test func headerIsFourteenBytesWithItsCRCAndTheFileEndsInItsCRC() throws {
        let file = FitFixtures.minimalWriter().finish()
        #expect(file[0] == 14 && Array(file[8..<12]) == Array(".FIT".utf8))
        #expect(UInt16(file[12]) | UInt16(file[13]) << 8 == Self.referenceCRC(Array(file[0..<12])))
        #expect(UInt16(file[file.count - 2]) | UInt16(file[file.count - 1]) << 8 == Self.referenceCRC(Array(file.dropLast(2))))
        let messages = try Self.messages(file)
        #expect(messages.map(\.globalNumber) == [0, 20])
        #expect(messages[1].integer(3) == 150 && messages[1].timestamp == FitFixtures.start)
        #expect(messages[1].offset == 14 + (1 + 5 + 2 * 3) + (1 + 1 + 4) + (1 + 5 + 2 * 3))
    }

    @Test func twelveByteHeaderAndAZeroHeaderCRCAreRead() throws {
        let short = FitFixtures.minimalWriter().finish(headerSize: 12)
        #expect(short[0] == 12)
        #expect(try Self.messages(short).count == 2)
        var unchecked = FitFixtures.minimalWriter().finish()
        unchecked[12] = 0
        unchecked[13] = 0
        let crc = FitCRC.checksum(Array(unchecked.dropLast(2)))
        unchecked[unchecked.count - 2] = UInt8(crc & 0xFF)
        unchecked[unchecked.count - 1] = UInt8(crc >> 8)
        #expect(try Self.messages(unchecked).count == 2)
    }

    @Test func bigEndianDefinitionsAreRead() throws {
        var writer = FitWriter()
        writer.write(3, global: FitMessageNumber.record, [FitOutField(253, .uint32, .integer(1_000_000)), FitOutField(0, .sint32, .integer(-123_456_789)),
                                                          FitOutField(5, .uint32, .integer(70_000)), FitOutField(6, .uint16, .integer(2_345))],
                     bigEndian: true)
        let file = writer.finish()
        let message = try #require(try Self.messages(file).first)
        #expect(message.globalNumber == 20 && message.timestamp == 1_000_000)
        #expect(message.integer(0) == -123_456_789 && message.integer(5) == 70_000 && message.integer(6) == 2_345)
        // The global number is big-endian too: 0x00 0x14.
        #expect(Array(file[17..<19]) == [0x00, 0x14])
    }

    @Test func invalidValuesReadAsAbsent() throws {
        var writer = FitWriter()
        writer.write(0, global: 20, [FitOutField(253, .uint32, .integer(5_000)), FitOutField(3, .uint8, .integer(nil)),
                                     FitOutField(0, .sint32, .integer(nil)), FitOutField(9, .uint32z, .integer(nil)),
                                     FitOutField(10, .float32, .float(nil)), FitOutField(11, .string, .text("", size: 4)),
                                     FitOutField(12, .sint16, .integer(-2))])
        let message = try #require(try Self.messages(writer.finish()).first)
        #expect(message.field(3)?.bytes == [0xFF] && message.integer(3) == nil)
        #expect(message.field(0)?.bytes == [0xFF, 0xFF, 0xFF, 0x7F] && message.integer(0) == nil)
        #expect(message.field(9)?.bytes == [0, 0, 0, 0] && message.integer(9) == nil)
        #expect(message.number(10) == nil && message.field(11)?.text == nil)
        #expect(message.integer(12) == -2)
    }

    @Test func compressedTimestampsAddTheirOffsetAndRollOver() throws {
        var writer = FitWriter()
        // Last full timestamp ends in 30 (0x1E): offset 31 is one second later, offset 2 rolls over to +4.
        let base: UInt32 = 0x4000_001E
        writer.write(0, global: 20, [FitOutField(253, .uint32, .integer(Int64(base))), FitOutField(3, .uint8, .integer(100))])
        writer.write(1, global: 20, [FitOutField(3, .uint8, .integer(101))], compressedTimeOffset: 31)
        writer.write(1, global: 20, [FitOutField(3, .uint8, .integer(102))], compressedTimeOffset: 2)
        writer.write(1, global: 20, [FitOutField(3, .uint8, .integer(103))], compressedTimeOffset: 2)
        let messages = try Self.messages(writer.finish())
        #expect(messages.map(\.timestamp) == [base, base + 1, base + 4, base + 4])
        #expect(messages.map { $0.integer(3) } == [100, 101, 102, 103])
    }

    @Test func developerFieldsCarryTheirDescription() throws {
        var writer = FitWriter()
        writer.write(0, global: FitMessageNumber.developerDataID, [FitOutField(3, .uint8, .integer(0))])
        writer.write(1, global: FitMessageNumber.fieldDescription, [
            FitOutField(0, .uint8, .integer(0)), FitOutField(1, .uint8, .integer(7)), FitOutField(2, .uint8, .integer(Int64(FitBaseType.uint16.rawValue))),
            FitOutField(3, .string, .text("Power", size: 8)), FitOutField(8, .string, .text("W", size: 4)),
        ])
        writer.write(2, global: 20, [FitOutField(253, .uint32, .integer(9))],
                     developer: [(FitDeveloperFieldDefinition(number: 7, size: 2, developerIndex: 0), [0x2C, 0x01])])
        let messages = try Self.messages(writer.finish())
        let record = try #require(messages.last)
        #expect(record.developerFields == [FitDeveloperField(developerIndex: 0, number: 7, bytes: [0x2C, 0x01], name: "Power", units: "W", baseType: .uint16)])
    }

    @Test func chainedFilesAreReadInTurn() throws {
        let one = FitFixtures.minimalWriter().finish()
        #expect(try Self.messages(one + one).count == 4)
    }

    @Test func activityRoundTripsFieldForField() throws {
        let activity = FitFixtures.activity()
        guard case .activity(let read) = try FitContent(parsing: activity.encoded()) else { Issue.record("not an activity"); return }
        #expect(read.identity == activity.identity)
        #expect(read.laps == activity.laps)
        #expect(read.sessions == activity.sessions)
        #expect(read.points.count == activity.points.count)
        for (a, b) in zip(read.points, activity.points) {
            #expect(a.timestamp == b.timestamp && a.heartRate == b.heartRate && a.cadence == b.cadence)
            #expect(abs(a.latitude! - b.latitude!) < 1e-7 && abs(a.longitude! - b.longitude!) < 1e-7)
            #expect(abs(a.altitude! - b.altitude!) < 0.2 + 1e-9 && abs(a.distance! - b.distance!) < 0.006 && a.speed == b.speed)
        }
        // What was read once comes back exactly: degrees ↔ semicircles and the scales are stable.
        guard case .activity(let again) = try FitContent(parsing: read.encoded()) else { Issue.record("not an activity"); return }
        #expect(again == read)
    }

    @Test func monitoringCountersBecomeIntervals() throws {
        var writer = FitWriter()
        let t: UInt32 = 1_132_900_000
        writer.write(0, global: FitMessageNumber.fileID, [FitOutField(0, .enumeration, .integer(FitFileType.monitoringB)),
                                                          FitOutField(3, .uint32z, .integer(42))])
        writer.write(1, global: FitMessageNumber.monitoringInfo, [FitOutField(253, .uint32, .integer(Int64(t)))])
        func reading(_ short: UInt32?, full: UInt32?, steps: Int64, calories: Int64, rate: Int64?) {
            var fields = [FitOutField(5, .enumeration, .integer(6)), FitOutField(3, .uint32, .integer(steps)),
                          FitOutField(19, .uint16, .integer(calories)), FitOutField(27, .uint8, .integer(rate))]
            if let full { fields.insert(FitOutField(253, .uint32, .integer(Int64(full))), at: 0) }
            if let short { fields.insert(FitOutField(26, .uint16, .integer(Int64(short & 0xFFFF))), at: 0) }
            writer.write(full == nil ? 2 : 3, global: FitMessageNumber.monitoring, fields)
        }
        reading(nil, full: t + 60, steps: 1_000, calories: 50, rate: 70)
        reading(t + 120, full: nil, steps: 1_100, calories: 55, rate: nil)
        // The counters restart (a new local day): 30 steps since.
        reading(nil, full: t + 70_000, steps: 30, calories: 1, rate: 64)
        guard case .monitoring(let monitoring) = try FitContent(parsing: writer.finish()) else { Issue.record("not monitoring"); return }
        #expect(monitoring.intervals == [
            .init(quantity: .steps, start: t + 60, end: t + 120, value: 100),
            .init(quantity: .activeKilocalories, start: t + 60, end: t + 120, value: 5),
            .init(quantity: .steps, start: t + 120, end: t + 70_000, value: 30),
            .init(quantity: .activeKilocalories, start: t + 120, end: t + 70_000, value: 1),
        ])
        #expect(monitoring.heartRates == [.init(timestamp: t + 60, beatsPerMinute: 70), .init(timestamp: t + 70_000, beatsPerMinute: 64)])
    }

    @Test func textFieldsAreCutAtACharacterBoundary() throws {
        var writer = FitWriter()
        writer.write(0, global: 0, [FitOutField(8, .string, .text("aé", size: 3)), FitOutField(9, .string, .text("€x", size: 5))])
        let message = try #require(try Self.messages(writer.finish()).first)
        #expect(message.field(8)?.bytes == [0x61, 0, 0] && message.field(9)?.text == "€x")
    }

    @Test func aTimestamp16OfAnotherTypeIsReadWithoutTrapping() throws {
        var writer = FitWriter()
        writer.write(0, global: FitMessageNumber.fileID, [FitOutField(0, .enumeration, .integer(FitFileType.monitoringB))])
        writer.write(1, global: FitMessageNumber.monitoring, [FitOutField(253, .uint32, .integer(1_000_000)), FitOutField(27, .uint8, .integer(60))])
        writer.write(2, global: FitMessageNumber.monitoring, [FitOutField(26, .sint32, .integer(-1)), FitOutField(27, .uint8, .integer(61))])
        guard case .monitoring(let monitoring) = try FitContent(parsing: writer.finish()) else { Issue.record("not monitoring"); return }
        #expect(monitoring.heartRates.map(\.beatsPerMinute) == [60, 61])
    }
}
