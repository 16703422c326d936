import Foundation
import HealthModel
import Testing

/// Import lines are UTF-8 exactly: a malformed byte is an error naming its offset, never a
/// U+FFFD that silently merges two different source names.
@Suite struct StrictUTF8Tests {
    func parse(_ bytes: [UInt8]) -> Result<JSONValue, JSONLineParser.Failure> {
        bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONLineParser.Failure) -> JSONValue in try JSONLineParser.parse(buffer) }
        }
    }

    /// `"` + body + `"`, with and without an escape before it (both string paths).
    func quoted(_ body: [UInt8], escaped: Bool) -> [UInt8] {
        Array(#"{"source":""#.utf8) + (escaped ? Array(#"\n"#.utf8) : []) + body + Array(#""}"#.utf8)
    }

    @Test(arguments: [false, true]) func theReviewsBytesAreRejectedWithTheirOffset(escaped: Bool) throws {
        let prefix = Array(#"{"source":""#.utf8).count + (escaped ? 2 : 0)
        for (body, offsetInBody, words) in [
            (Array("com.".utf8) + [0xFF, 0xFE], 4, "never occurs in UTF-8"),
            (Array("com.".utf8) + [0xC0, 0xAF], 4, "overlong"),
            ([0xE0, 0x80, 0xAF], 0, "overlong"),  // "/" in three bytes
            ([0xF0, 0x80, 0x80, 0xAF], 0, "overlong"),
            ([0xED, 0xA0, 0x80], 0, "surrogate"),  // U+D800
            ([0xF4, 0x90, 0x80, 0x80], 0, "above U+10FFFF"),
            (Array("ab".utf8) + [0x80], 2, "continuation byte"),
            (Array("é".utf8.prefix(1)), 0, "truncated"),  // the closing quote where a continuation belongs
        ] as [([UInt8], Int, String)] {
            guard case .failure(let failure) = parse(quoted(body, escaped: escaped)) else {
                Issue.record("\(body) was accepted")
                continue
            }
            #expect(failure.offset == prefix + offsetInBody, "\(body)")
            #expect(failure.message.contains("invalid UTF-8") && failure.message.contains(words), "\(body): \(failure.message)")
        }
    }

    /// Every 1-, 2-, 3-byte sequence and a sample of 4-byte ones: the parser accepts exactly
    /// what Swift's own validating decoder (`String(validating:)`) accepts, and keeps it unchanged.
    @Test(arguments: [false, true]) func acceptsExactlyWellFormedUTF8(escaped: Bool) {
        var sequences: [[UInt8]] = []
        for a in 0x80...0xFF { sequences.append([UInt8(a)]) }
        for a in 0xC0...0xFF { for b in 0x00...0xFF where b >= 0x20 && b != 0x22 && b != 0x5C { sequences.append([UInt8(a), UInt8(b)]) } }
        for a in 0xE0...0xEF { for b in 0x70...0xC7 { for c in [0x41, 0x7F, 0x80, 0x9F, 0xA0, 0xBF, 0xC0] { sequences.append([UInt8(a), UInt8(b), UInt8(c)]) } } }
        for a in 0xF0...0xF7 { for b in [0x7F, 0x80, 0x8F, 0x90, 0xBF, 0xC0] { for c in [0x80, 0xBF] { for d in [0x41, 0x80, 0xBF] {
            sequences.append([UInt8(a), UInt8(b), UInt8(c), UInt8(d)])
        } } } }
        var mismatches: [[UInt8]] = []
        for sequence in sequences {
            let expected = String(validating: sequence, as: UTF8.self)
            switch parse(quoted(sequence, escaped: escaped)) {
            case .success(.object(let members)):
                let text = members.first.flatMap { if case .string(let s) = $0.1 { s } else { nil } }
                if expected == nil || text != (escaped ? "\n" : "") + expected! { mismatches.append(sequence) }
            case .success: mismatches.append(sequence)
            case .failure: if expected != nil { mismatches.append(sequence) }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10).map { $0.map { String($0, radix: 16) } })")
    }

    /// Found by `fuzz/importrules` after 4.3 M runs: the import's source cache is a Swift
    /// dictionary, whose String keys compare by canonical equivalence, so a second source whose
    /// name was canonically equal but byte-different came back with the first one's bytes.
    @Test func canonicallyEquivalentSourceNamesKeepTheirOwnBytes() throws {
        let context = ImportRecord.Context()
        func source(_ name: String) throws -> [UInt8] {
            let line = Array(#"{"type":"step-count","value":5,"start":"2026-11-30T09:00:00Z","source":""#.utf8) + Array(name.utf8) + Array(#""}"#.utf8)
            let record = try line.withUnsafeBufferPointer { buffer in
                try ImportRecord(line: buffer, number: 1, context: context)
            }
            return Array(record.source.id.utf8)
        }
        #expect(try source("\u{0341}") == [0xCD, 0x81])  // COMBINING ACUTE TONE MARK
        #expect(try source("\u{0301}") == [0xCC, 0x81], "its canonical equivalent, U+0301, keeps its own bytes")
        #expect(try source("caf\u{E9}") == Array("caf\u{E9}".utf8))
        #expect(try source("cafe\u{301}") == Array("cafe\u{301}".utf8))
    }

    @Test func anImportLineNamesTheLineAndByte() {
        let line = Array(#"{"type":"step-count","value":5,"start":"2026-11-30T09:00:00Z","source":"com."#.utf8) + [0xC0, 0xAF] + Array(#""}"#.utf8)
        let context = ImportRecord.Context()
        let result = line.withUnsafeBufferPointer { buffer in
            Result { () throws(ImportError) -> ImportRecord in try ImportRecord(line: buffer, number: 3, context: context) }
        }
        guard case .failure(let error) = result else { Issue.record("accepted"); return }
        #expect(error.line == 3)
        #expect(error.description.contains("at byte \(line.count - 4 + 1)"), "\(error)")
        #expect(error.description.contains("overlong"), "\(error)")
    }
}
