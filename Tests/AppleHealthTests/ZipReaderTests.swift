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
