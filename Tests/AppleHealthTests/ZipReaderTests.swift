import AppleHealth
import Foundation
import Testing

/// The zip reader on archives written by Python's zipfile, whole, cut at every offset and with
/// every byte of the member's compressed data flipped.
@Suite final class ZipReaderTests {
    let directory: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("zip-test-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    static let content = Fragment.document(
        (0..<20).map { Fragment.record("HKQuantityTypeIdentifierStepCount", value: "\($0)", start: "2024-06-01 09:\(10 + $0):00 -0700",
                                        end: "2024-06-01 09:\(10 + $0):30 -0700") }.joined())

    func makeZip(_ compression: String = "ZIP_DEFLATED") throws -> [UInt8] {
        let member = directory + "/export.xml", archive = directory + "/export.zip"
        try Data(Self.content.utf8).write(to: URL(fileURLWithPath: member))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", """
            import zipfile, sys
            z = zipfile.ZipFile(sys.argv[1], 'w', zipfile.\(compression))
            z.writestr('apple_health_export/export_cda.xml', '<cda/>')
            z.write(sys.argv[2], 'apple_health_export/export.xml')
            z.close()
            """, archive, member]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return try Array(Data(contentsOf: URL(fileURLWithPath: archive)))
    }

    /// The same archive in ZIP64 form (Tests/support/make-zip64.py): ZIP64 local header, central
    /// directory extra field and end-of-directory record and locator.
    func makeZip64(_ compression: String = "ZIP_DEFLATED") throws -> [UInt8] {
        let member = directory + "/export.xml", archive = directory + "/export64.zip"
        try Data(Self.content.utf8).write(to: URL(fileURLWithPath: member))
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("support/make-zip64.py").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, archive, member, compression]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return try Array(Data(contentsOf: URL(fileURLWithPath: archive)))
    }

    /// Where the ZIP64 end record, its locator and the classic end record sit in a fixture.
    func zip64Layout(_ bytes: [UInt8]) throws -> (record: Int, locator: Int, end: Int) {
        let end = bytes.count - 22
        let locator = end - 20
        #expect(Array(bytes[end..<(end + 4)]) == [0x50, 0x4B, 0x05, 0x06])
        #expect(Array(bytes[locator..<(locator + 4)]) == [0x50, 0x4B, 0x06, 0x07])
        #expect(Array(bytes[(end + 8)..<(end + 20)]) == [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        let record = locator - 56
        #expect(Array(bytes[record..<(record + 4)]) == [0x50, 0x4B, 0x06, 0x06])
        return (record, locator, end)
    }

    func failure(_ bytes: [UInt8]) throws -> AppleHealthError? {
        if case .failure(let error) = try read(bytes) { return error }
        return nil
    }

    @Test func zip64ArchivesGiveTheMemberBack() throws {
        for compression in ["ZIP_DEFLATED", "ZIP_STORED"] {
            let bytes = try makeZip64(compression)
            _ = try zip64Layout(bytes)
            // The member's central entry holds 0xFFFFFFFF sizes and offset: only the extra field has them.
            let name = Array("apple_health_export/export.xml".utf8)
            let nameInDirectory = try #require((0...(bytes.count - name.count)).last { bytes[$0..<($0 + name.count)].elementsEqual(name) })
            let central = nameInDirectory - 46
            #expect(Array(bytes[central..<(central + 4)]) == [0x50, 0x4B, 0x01, 0x02])
            #expect(bytes[(central + 20)..<(central + 28)].allSatisfy { $0 == 0xFF })
            #expect(bytes[(central + 42)..<(central + 46)].allSatisfy { $0 == 0xFF })
            #expect(try read(bytes) == .success(Array(Self.content.utf8)), "\(compression)")
        }
    }

    @Test func aZip64ArchiveCutAtAnyOffsetIsAZipErrorNeverACrash() throws {
        let bytes = try makeZip64()
        for length in 0..<bytes.count {
            guard let error = try failure(Array(bytes[0..<length])) else {
                Issue.record("a ZIP64 archive cut at byte \(length) of \(bytes.count) read as whole")
                continue
            }
            #expect(error.kind == .zip, "cut at \(length): \(error)")
        }
    }

    @Test func aDamagedZip64RecordIsAZipErrorNamingIt() throws {
        let bytes = try makeZip64()
        let layout = try zip64Layout(bytes)

        var noLocator = bytes
        noLocator[layout.locator] ^= 0xFF
        #expect(try failure(noLocator)?.description.contains("ZIP64 sizes without a ZIP64 locator") == true)

        var noRecord = bytes
        noRecord[layout.record + 1] ^= 0xFF
        #expect(try failure(noRecord)?.description.contains("no ZIP64 end record at byte \(layout.record)") == true)

        var pastTheEnd = bytes
        for index in 0..<8 { pastTheEnd[layout.locator + 8 + index] = index == 6 ? 0x01 : 0x00 }  // 2^48
        #expect(try failure(pastTheEnd)?.description.contains("ZIP64 end record offset 281474976710656 is past the end") == true)

        var hugeDirectory = bytes
        hugeDirectory[layout.record + 48 + 5] = 0x7F  // directory offset far past the file
        #expect(try failure(hugeDirectory)?.description.contains("runs past the end of the") == true)

        var tooManyMembers = bytes
        tooManyMembers[layout.record + 32 + 6] = 0x01  // 2^48 members
        #expect(try failure(tooManyMembers)?.description.contains("beyond the limits") == true)

        // The member's extra field 0x0001 cut from 24 to 16 bytes: the offset is missing.
        let extraHeader: [UInt8] = [0x01, 0x00, 0x18, 0x00]
        let extra = try #require(firstIndex(of: extraHeader, in: Array(bytes[(layout.record - 200)...])).map { $0 + layout.record - 200 })
        var shortExtra = bytes
        shortExtra[extra + 2] = 0x10
        let short = try #require(try failure(shortExtra))
        #expect(short.kind == .zip)
        #expect(short.description.contains("ZIP64 extra field too short"), "\(short)")
    }

    /// The export.xml member's content, or the error reading the archive `bytes` threw.
    func read(_ bytes: [UInt8]) throws -> Result<[UInt8], AppleHealthError> {
        let path = directory + "/case.zip"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let descriptor = open(path, O_RDONLY)
        defer { close(descriptor) }
        do {
            let zip = try ZipDirectory(descriptor: descriptor, name: "case.zip")
            guard let member = zip.exportXML else { return .failure(AppleHealthError(.zip, place: "case.zip", "no export.xml")) }
            let reader = try ZipMemberReader(descriptor: descriptor, directory: zip, member: member, archiveName: "case.zip")
            var content: [UInt8] = []
            try reader.forEachPiece { content.append(contentsOf: $0) }
            return .success(content)
        } catch let error as AppleHealthError {
            return .failure(error)
        }
    }

    @Test func wholeArchivesGiveTheMemberBack() throws {
        for compression in ["ZIP_DEFLATED", "ZIP_STORED"] {
            #expect(try read(makeZip(compression)) == .success(Array(Self.content.utf8)), "\(compression)")
        }
    }

    @Test func anArchiveCutAtAnyOffsetIsAZipErrorNeverACrash() throws {
        let bytes = try makeZip()
        for length in 0..<bytes.count {
            guard case .failure(let error) = try read(Array(bytes[0..<length])) else {
                Issue.record("an archive cut at byte \(length) of \(bytes.count) read as whole")
                continue
            }
            #expect(error.kind == .zip, "cut at \(length): \(error)")
        }
    }

    @Test func everyFlippedByteOfTheCompressedDataIsCaughtOrHarmless() throws {
        let bytes = try makeZip()
        let original = Array(Self.content.utf8)
        // The member's data: after its local header (30 bytes + the name) up to the central directory.
        let name = Array("apple_health_export/export.xml".utf8)
        let nameStart = try #require(firstIndex(of: name, in: bytes))
        let extraLength = Int(bytes[nameStart - 2]) | Int(bytes[nameStart - 1]) << 8
        let dataStart = nameStart + name.count + extraLength
        let directoryStart = try #require(firstIndex(of: [0x50, 0x4B, 0x01, 0x02], in: bytes))
        var caught = 0
        for index in dataStart..<directoryStart {
            var damaged = bytes
            damaged[index] ^= 0x41
            switch try read(damaged) {
            case .success(let content): #expect(content == original, "a flip at byte \(index) changed the member silently")
            case .failure(let error):
                #expect(error.kind == .zip)
                #expect(error.description.contains("member apple_health_export/export.xml"))
                caught += 1
            }
        }
        #expect(caught > (directoryStart - dataStart) / 2)
    }

    func firstIndex(of needle: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        for start in 0...(bytes.count - needle.count) where bytes[start..<(start + needle.count)].elementsEqual(needle) {
            return start
        }
        return nil
    }
}
