import Foundation
import HealthModel
import Testing

/// The import's fast path (`ImportRecord(fastParsing:)`) against the general parser
/// (`ImportRecord(generalParsing:)`): over valid and hostile lines, whatever the fast path builds
/// the general path builds byte for byte, and `ImportRecord(line:)` gives the general path's
/// record or its error text exactly.
@Suite struct ImportFastPathTests {
    /// Lines the fast path must take itself: every optional field, unicode, numbers at bounds.
    static let everydayLines: [String] = [
        #"{"type":"step-count","value":42,"unit":"count","start":"2023-06-01T00:00:00-07:00","end":"2023-06-01T00:01:00-07:00","source":"Anna’s Apple Watch","source_version":"10.5","device":"Apple Watch","zone":"GMT-0700"}"#,
        #"{"type":"active-energy-burned","value":1.7,"unit":"kcal","start":"2023-06-01T00:00:00-07:00","end":"2023-06-01T00:01:00-07:00","source":"iPhone de Anna","source_version":"17.5","device":"iPhone","zone":"GMT-0700"}"#,
        #"{"type":"distance-walking-running","value":0.03,"unit":"km","start":"2023-06-01T00:00:00-07:00","end":"2023-06-01T00:01:00-07:00","source":"Anna’s Apple Watch","source_version":"10.5"}"#,
        #"{"type":"sleep-analysis","value":"asleepCore","start":"2023-06-01T23:00:00-07:00","end":"2023-06-02T00:20:00-07:00","source":"x","zone":"GMT-0700"}"#,
        #"{"type":"stand-hour","value":1,"start":"2026-11-30T08:00:00Z","end":"2026-11-30T09:00:00Z","source":"x"}"#,
        #"{"type":"stand-hour","value":0,"start":"2026-11-30T08:00:00Z","end":"2026-11-30T09:00:00Z","source":"x"}"#,
        #"{"type":"HKQuantityTypeIdentifierHeartRate","value":60,"start":"2026-07-01T12:00:00","zone":"America/New_York","source":"x"}"#,
        #" { "type" : "heart-rate" ,\#t"value" : 6.5e1 , "start" : "2026-07-01T12:00:00.250+02:00" , "source" : "x" } "#,
        #"{"source":"com.example","type":"heart-rate","value":60,"start":"2026-07-01T12:00:00Z","sync_id":"ride-1","sync_version":4,"user_entered":true,"metadata":{"note":"café 🚲","a":"1","a":"2"},"id":"6f1c1a2e-0000-7000-8000-000000000001"}"#,
        #"{"type":"heart-rate","value":60,"start":"2026-07-01T12:00:00Z","source":"x","sync_version":-8999999999999999,"user_entered":false,"metadata":{}}"#,
        #"{"type":"heart-rate","value":60,"start":"2026-07-01T12:00:00Z","source":"x","sync_version":123456789012345,"device":"𝄞 Band"}"#,
        #"{"type":"body-mass","value":1234567890.5e-7,"unit":"kg","start":"1900-01-01T00:00:00Z","source":"x"}"#,
        #"{"type":"body-mass","value":100,"unit":"lb","start":"2099-12-31T23:59:59.999+00:00","source":"x","source_version":""}"#,
        #"{"type":"step-count","value":0,"start":"2026-07-01T12:00:00Z","source":"x"}"#,
        #"{"type":"step-count","value":-0,"start":"2026-07-01T12:00:00Z","source":"x"}"#,
        #"{"type":"step-count","value":1E+2,"start":"2026-07-01T12:00:00Z","source":"x"}"#,
        #"{"type":"heart-rate","value":60,"start":"2026-07-01T12:00:00Z","source":"x","sync_version":999999999999999}"#,
        #"{"type":"heart-rate","value":60,"start":"2026-07-01T12:00:00Z","source":"x","sync_version":-1234567890123456}"#,
        #"{"type":"body-mass","value":123456789012345e-12,"unit":"kg","start":"2026-07-01T12:00:00Z","source":"x"}"#,
        #"{"type":"body-mass","value":1234567890123456e-13,"unit":"kg","start":"2026-07-01T12:00:00Z","source":"x"}"#,
    ]

    /// Lines the general path must decide (the fast path gives way), valid or not.
    static let unusualLines: [String] = [
        #"{"type":"heart-rate","value":60,"start":"2026-07-01T12:00:00Z","source":"caf\u00e9"}"#,
        // Whole numbers at the 15-digit edge of the scan's exact integers (both implausible step counts).
        #"{"type":"step-count","value":999999999999999,"start":"2026-07-01T12:00:00Z","end":"2026-07-01T12:00:00Z","source":"x"}"#,
        #"{"type":"step-count","value":1000000000000000,"start":"2026-07-01T12:00:00Z","source":"x"}"#,
        #"{"type":"heart-rate","value":60,"start":"2026-07-01T12:00:00Z","source":"a\"b"}"#,
        #"{"type":"heart-rate","value":60,"start":"2026-07-01T12:00:00Z","source":"x","unit":null}"#,
        #"{"type":"heart-rate","value":60,"start":"2026-07-01T12:00:00Z","source":"x","device":{"name":"Band","model":"B"}}"#,
        #"{"type":"heart-rate","value":60,"start":"2026-07-01T12:00:00Z","source":"x","value":61}"#,
        #"{"type":"heart-rate","value":60,"start":"2026-07-01T12:00:00Z","source":"x","colour":"red"}"#,
        #"{"type":"heart-rate","value":60,"start":"2026-07-01T12:00:00Z","source":"x","activity":"running"}"#,
        #"{"type":"workout","activity":"running","start":"2026-11-30T08:00:00Z","end":"2026-11-30T09:00:00Z","source":"x","total_energy_kcal":300}"#,
        #"{"type":"heart-rate","value":"60","start":"2026-07-01T12:00:00Z","source":"x"}"#,
        #"{"type":"heart-rate","value":60,"start":"2026-07-01T12:00:00","source":"x"}"#,
        #"{"type":"heart-rate","value":60,"start":"2026-07-01T12:00:00Z","end":"2026-07-01T11:00:00Z","source":"x"}"#,
        #"{"type":"heart-rate","value":60,"start":"1899-12-31T23:59:59Z","source":"x"}"#,
        #"{"type":"heart-rate","value":60,"start":"2100-01-01T00:00:00Z","source":"x"}"#,
        #"{"type":"heart-rate","value":60,"start":"2026-02-30T12:00:00Z","source":"x"}"#,
        #"{"type":"heart-rate","value":1e400,"start":"2026-07-01T12:00:00Z","source":"x"}"#,
        #"{"type":"heart-rate","value":-1,"start":"2026-07-01T12:00:00Z","source":"x"}"#,
        #"{"type":"heart-rate","value":01,"start":"2026-07-01T12:00:00Z","source":"x"}"#,
        #"{"type":"heart-rate","value":1.,"start":"2026-07-01T12:00:00Z","source":"x"}"#,
        #"{"type":"heart-rate","value":.5,"start":"2026-07-01T12:00:00Z","source":"x"}"#,
        #"{"type":"heart-rate","value":+1,"start":"2026-07-01T12:00:00Z","source":"x"}"#,
        #"{"type":"heart-rate","value":1e,"start":"2026-07-01T12:00:00Z","source":"x"}"#,
        #"{"type":"heart-rate","value":60,"unit":"kg","start":"2026-07-01T12:00:00Z","source":"x"}"#,
        #"{"type":"heart-rate","value":60,"unit":"furlong","start":"2026-07-01T12:00:00Z","source":"x"}"#,
        #"{"type":"stand-hour","value":2,"start":"2026-11-30T08:00:00Z","source":"x"}"#,
        #"{"type":"stand-hour","value":0.5,"start":"2026-11-30T08:00:00Z","source":"x"}"#,
        #"{"type":"stand-hour","value":1e300,"start":"2026-11-30T08:00:00Z","source":"x"}"#,
        #"{"type":"stand-hour","value":-1e300,"start":"2026-11-30T08:00:00Z","source":"x"}"#,
        #"{"type":"stand-hour","value":"Stood","start":"2026-11-30T08:00:00Z","source":"x"}"#,
        #"{"type":"stand-hour","value":1,"unit":"count","start":"2026-11-30T08:00:00Z","source":"x"}"#,
        #"{"type":"heart-rate","value":60,"start":"2026-07-01T12:00:00Z","source":""}"#,
        #"{"type":"heart-rate","value":60,"start":"2026-07-01T12:00:00Z","source":"x","zone":"Mars/Olympus"}"#,
        #"{"type":"heart-rate","value":60,"start":"2026-07-01T12:00:00Z","source":"x","id":"not-a-uuid"}"#,
        #"{"type":"heart-rate","value":60,"start":"2026-07-01T12:00:00Z","source":"x","sync_version":1.5}"#,
        #"{"type":"heart-rate","value":60,"start":"2026-07-01T12:00:00Z","source":"x","sync_version":9e15}"#,
        #"{"type":"heart-rate","value":60,"start":"2026-07-01T12:00:00Z","source":"x","user_entered":"yes"}"#,
        #"{"type":"heart-rate","value":60,"start":"2026-07-01T12:00:00Z","source":"x","metadata":{"a":1}}"#,
        #"{"type":"heart-rate","value":60,"start":"2026-07-01T12:00:00Z","source":"x","metadata":[]}"#,
        #"{"type":"heart-rate","value":60,"start":"2026-07-01T12:00:00Z","source":"x"} x"#,
        #"{"type":"heart-rate","value":60,"start":"2026-07-01T12:00:00Z","source":"x",}"#,
        #"{"type":"unicorn","value":60,"start":"2026-07-01T12:00:00Z","source":"x"}"#,
        #"{"type":"heart-rate","value":60,"start":"2026-07-01T12:00:00Z","source":"\#(String(repeating: "é", count: 257))"}"#,
        #"{"type":"heart-rate","value":60,"start":"2026-07-01T12:00:00Z","source":"x","source_version":"\#(String(repeating: "v", count: 300))"}"#,
        #"{"type":"heart-rate","value":60,"start":"2026-07-01T12:00:00Z","source":"x","device":"\#(String(repeating: "d", count: 300))"}"#,
        #"{"type":"heart-rate","value":60,"start":"2026-07-01T12:00:00Z","source":"x","source":"y"}"#,
        "{}", "[]", "null", "", "{\"type\":\"heart-rate\"}",
    ]

    /// Raw bytes no String literal can hold: bad UTF-8 and control characters inside strings.
    static let byteInsides: [[UInt8]] = [[0x80], [0xC0, 0xAF], [0xC2], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xED, 0x9F, 0xBF],
                                         [0xF0, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF], [0xF8],
                                         [0xFF], [0x00], [0x1F], [0x09], [0x7F], [0xEF, 0xBB, 0xBF]]
    static let byteLines: [[UInt8]] = {
        let head = Array(#"{"type":"heart-rate","value":60,"start":"2026-07-01T12:00:00Z","source":"a"#.utf8)
        let tail = Array(#""}"#.utf8)
        return byteInsides.map { head + $0 + tail }
    }()

    /// Checks one line; true when the fast path took it.
    @discardableResult
    static func check(_ bytes: [UInt8], contexts: (fast: ImportRecord.Context, general: ImportRecord.Context, combined: ImportRecord.Context),
                      sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        bytes.withUnsafeBufferPointer { line in
            let hasID = String(decoding: bytes, as: UTF8.self).contains(#""id""#)
            let general = Result { () throws(ImportError) in try ImportRecord(generalParsing: line, number: 9, context: contexts.general) }
            let combined = Result { () throws(ImportError) in try ImportRecord(line: line, number: 9, context: contexts.combined) }
            let text = String(decoding: bytes, as: UTF8.self)
            switch (combined, general) {
            case (.success(let a), .success(let b)):
                #expect(a.fingerprint(includingID: hasID) == b.fingerprint(includingID: hasID), "\(text)", sourceLocation: sourceLocation)
            case (.failure(let a), .failure(let b)):
                #expect(a.description == b.description, "\(text)", sourceLocation: sourceLocation)
            default:
                Issue.record("import gave \(combined), the general path \(general) for \(text)", sourceLocation: sourceLocation)
            }
            guard let fast = ImportRecord(fastParsing: line, context: contexts.fast) else { return false }
            guard case .success(let record) = general else {
                Issue.record("the fast path took what the general path refuses (\(general)): \(text)", sourceLocation: sourceLocation)
                return true
            }
            #expect(fast.fingerprint(includingID: hasID) == record.fingerprint(includingID: hasID), "\(text)", sourceLocation: sourceLocation)
            return true
        }
    }

    static func contexts() -> (fast: ImportRecord.Context, general: ImportRecord.Context, combined: ImportRecord.Context) {
        (ImportRecord.Context(), ImportRecord.Context(), ImportRecord.Context())
    }

    @Test func everydayLinesTakeTheFastPathAndMatchTheGeneralParser() {
        let contexts = Self.contexts()
        for line in Self.everydayLines {
            #expect(Self.check(Array(line.utf8), contexts: contexts), "the fast path gave way on \(line)")
        }
        // A second time: now every name comes from the byte-keyed caches.
        for line in Self.everydayLines {
            #expect(Self.check(Array(line.utf8), contexts: contexts), "the fast path gave way on \(line) (cached)")
        }
    }

    @Test func unusualLinesGetTheGeneralParsersRecordOrError() {
        let contexts = Self.contexts()
        for line in Self.unusualLines { Self.check(Array(line.utf8), contexts: contexts) }
        // Well-formed UTF-8 without control characters stays on the fast path; the rest is the general path's.
        for (inside, line) in zip(Self.byteInsides, Self.byteLines) {
            let valid = String(validating: inside, as: UTF8.self) != nil && inside.allSatisfy { $0 >= 0x20 }
            #expect(Self.check(line, contexts: contexts) == valid, "\(inside)")
        }
        // The general path's own words, as the import prints them.
        var line = Array(#"{"type":"heart-rate","value":60,"start":"2026-07-01T12:00:00Z","source":"x","value":61}"#.utf8)
        let error = line.withUnsafeMutableBufferPointer { bytes in
            Result { () throws(ImportError) in try ImportRecord(line: UnsafeBufferPointer(bytes), number: 9, context: .init()) }
        }
        guard case .failure(let failure) = error else { Issue.record("a repeated field decoded"); return }
        #expect(failure.description == "line 9: field 'value': given twice")
    }

    @Test func everyTruncationAndEveryByteSwapAgree() {
        let contexts = Self.contexts()
        let swaps: [UInt8] = [0x22, 0x5C, 0x7B, 0x7D, 0x2C, 0x3A, 0x20, 0x30, 0x2D, 0x65, 0x80, 0x00]
        for line in Self.everydayLines.map({ Array($0.utf8) }) + Self.byteLines {
            for cut in 0..<line.count { Self.check(Array(line[..<cut]), contexts: contexts) }
            for position in line.indices {
                for byte in swaps where line[position] != byte {
                    var changed = line
                    changed[position] = byte
                    Self.check(changed, contexts: contexts)
                }
            }
        }
    }

    @Test func aCanonicallyEquivalentSourceKeepsItsOwnBytes() {
        // "é" precomposed and as "e" + U+0301: equal as Swift Strings, different bytes in the store.
        let contexts = Self.contexts()
        for source in ["caf\u{E9}", "cafe\u{301}", "caf\u{E9}"] {
            let line = #"{"type":"heart-rate","value":60,"start":"2026-07-01T12:00:00Z","source":"\#(source)","device":"\#(source)"}"#
            #expect(Self.check(Array(line.utf8), contexts: contexts))
            var bytes = Array(line.utf8)
            let record = bytes.withUnsafeMutableBufferPointer { ImportRecord(fastParsing: UnsafeBufferPointer($0), context: contexts.fast) }
            #expect(record.map { Array($0.source.id.utf8) } == Array(source.utf8))
        }
    }

    @Test func aSeriesIsItsExactBytesWhereAbsentIsNotEmpty() {
        // The parts of a series key (type, unit, source, version, device) are told apart by their
        // lengths: moving bytes between neighbours, or giving an empty field instead of none, is another series.
        let contexts = Self.contexts()
        let lines = [
            #"{"type":"step-count","value":1,"start":"2026-07-01T12:00:00Z","source":"ab","source_version":"c"}"#,
            #"{"type":"step-count","value":1,"start":"2026-07-01T12:00:00Z","source":"a","source_version":"bc"}"#,
            #"{"type":"step-count","value":1,"start":"2026-07-01T12:00:00Z","source":"abc"}"#,
            #"{"type":"step-count","value":1,"start":"2026-07-01T12:00:00Z","source":"abc","source_version":""}"#,
            #"{"type":"step-count","value":1,"start":"2026-07-01T12:00:00Z","source":"abc","device":""}"#,
            #"{"type":"step-count","value":1,"unit":"count","start":"2026-07-01T12:00:00Z","source":"abc"}"#,
            #"{"type":"step-count","value":1,"start":"2026-07-01T12:00:00Z","source":"abc","device":"d"}"#,
        ]
        var numbers: [Int] = []
        for line in lines + lines {
            #expect(Self.check(Array(line.utf8), contexts: contexts), "\(line)")
            var bytes = Array(line.utf8)
            let sample = bytes.withUnsafeMutableBufferPointer { ImportSampleLine(fastParsing: UnsafeBufferPointer($0), context: contexts.fast) }
            numbers.append(sample?.series ?? -1)
        }
        // Absent and empty versions are the same source (the store keeps ""), so lines 3 and 4 share a series.
        #expect(numbers == [0, 1, 2, 2, 3, 4, 5, 0, 1, 2, 2, 3, 4, 5])
    }

    @Test func pastTheCachesCapacityLinesGoToTheGeneralPathAndStillMatch() {
        let contexts = Self.contexts()
        var fast = 0
        for index in 0..<100 {
            let line = #"{"type":"heart-rate","value":60,"start":"2026-07-01T12:00:00Z","source":"app \#(index)","zone":"Etc/GMT+\#(index % 12)"}"#
            if Self.check(Array(line.utf8), contexts: contexts) { fast += 1 }
        }
        // 64 series are kept; the other lines are the general path's, with the same records.
        #expect(fast == 64)
    }
}
