import HealthTestSupport
import Foundation
import HealthModel
import Testing

/// The NDJSON import line decoder, on its own (the CLI tests cover the all-or-nothing import).
@Suite struct ImportRecordTests {
    func decode(_ line: String, number: Int = 1) throws -> ImportRecord {
        var text = line
        let context = ImportRecord.Context()
        return try text.withUTF8 { bytes in try ImportRecord(line: bytes, number: number, context: context) }
    }

    func error(_ line: String) -> String {
        do {
            _ = try decode(line, number: 7)
            return "decoded"
        } catch let error as ImportError {
            return error.description
        } catch {
            return "unexpected \(error)"
        }
    }

    @Test func aFullLineDecodesEveryField() throws {
        let record = try decode(#"""
            {"type":"HKQuantityTypeIdentifierDistanceCycling","value":2.5,"unit":"km","start":"2026-11-30T08:00:00+01:00",
             "end":"2026-11-30T08:10:00+01:00","source":"com.example.bike","source_version":"3.1",
             "device":{"name":"Bike","manufacturer":"Acme","model":"B","hardware_id":"11:22","firmware":"9"},
             "sync_id":"ride-1","sync_version":4,"zone":"Europe/Berlin","user_entered":false,
             "metadata":{"note":"caf\u00e9 \ud83d\udeb2"},"id":"6f1c1a2e-0000-7000-8000-000000000001"}
            """#.replacingOccurrences(of: "\n", with: ""))
        guard case .quantity(let sample) = record.payload else { Issue.record("not a quantity"); return }
        #expect(sample.type == .distanceCycling)
        #expect(try sample.canonicalValue() == 2500)
        #expect(sample.start == at("2026-11-30T07:00:00Z") && sample.end == at("2026-11-30T07:10:00Z"))
        #expect(record.source == AppIdentity(id: "com.example.bike", version: "3.1"))
        #expect(sample.device == DeviceInfo(name: "Bike", manufacturer: "Acme", model: "B", hardwareIdentifier: "11:22", firmwareVersion: "9"))
        #expect(sample.syncIdentifier == "ride-1" && sample.syncVersion == 4)
        #expect(sample.timeZone == TimeZone(identifier: "Europe/Berlin"))
        #expect(sample.metadata == ["note": "café 🚲"])
        #expect(sample.id == UUID(uuidString: "6f1c1a2e-0000-7000-8000-000000000001"))
    }

    @Test func timesWithoutAnOffsetAreReadInTheLinesZone() throws {
        let record = try decode(#"{"type":"heart-rate","value":60,"start":"2026-07-01T12:00:00","zone":"America/New_York","source":"x"}"#)
        guard case .quantity(let sample) = record.payload else { Issue.record("not a quantity"); return }
        #expect(sample.start == at("2026-07-01T16:00:00Z"))
        #expect(sample.end == sample.start)
    }

    @Test func categoryValuesByNameOrNumber() throws {
        for value in [#""idle""#, "1"] {
            let record = try decode(#"{"type":"stand-hour","value":\#(value),"start":"2026-11-30T08:00:00Z","end":"2026-11-30T09:00:00Z","source":"x"}"#)
            guard case .category(let sample) = record.payload else { Issue.record("not a category"); continue }
            #expect(sample.value == 1)
        }
    }

    @Test(arguments: [
        (#"{"type":"step-count","value":1,"start":"2026-11-30T08:00:00","source":"x"}"#, "line 7: field 'start': '2026-11-30T08:00:00' has no UTC offset"),
        (#"{"type":"step-count","value":1,"start":"2026-11-31T08:00:00Z","source":"x"}"#, "line 7: field 'start': '2026-11-31T08:00:00Z' is not an ISO 8601 time"),
        (#"{"type":"step-count","value":1,"start":"2026-11-30T08:00:00Z","end":"2026-11-30T07:00:00Z","source":"x"}"#, "line 7: field 'end': is before start"),
        (#"{"type":"step-count","value":1,"unit":"kcal","start":"2026-11-30T08:00:00Z","source":"x"}"#, "line 7: field 'unit': cannot convert energy unit 'kcal'"),
        (#"{"type":"step-count","value":1,"unit":"furlong","start":"2026-11-30T08:00:00Z","source":"x"}"#, "line 7: field 'unit': unknown unit 'furlong'"),
        (#"{"type":"steps-count","value":1,"start":"2026-11-30T08:00:00Z","source":"x"}"#, "line 7: field 'type': unknown type 'steps-count'"),
        (#"{"type":"step-count","start":"2026-11-30T08:00:00Z","source":"x"}"#, "line 7: field 'value': missing"),
        (#"{"type":"step-count","value":1,"start":"2026-11-30T08:00:00Z"}"#, "line 7: field 'source': missing"),
        (#"{"type":"step-count","value":1,"value":2,"start":"2026-11-30T08:00:00Z","source":"x"}"#, "line 7: field 'value': given twice"),
        (#"{"type":"step-count","value":1,"start":"2026-11-30T08:00:00Z","source":"x","sync_version":1.5}"#, "line 7: field 'sync_version': expected an integer"),
        (#"{"type":"stand-hour","value":"sat","start":"2026-11-30T08:00:00Z","source":"x"}"#, "line 7: field 'value': 'sat' is not a stand-hour value"),
        // Category numbers beyond Int once trapped in Int(number) instead of being refused.
        (#"{"type":"stand-hour","value":1e300,"start":"2026-11-30T08:00:00Z","source":"x"}"#, "line 7: field 'value': 1e+300 is not a stand-hour value (0=stood, 1=idle)"),
        (#"{"type":"stand-hour","value":-1e300,"start":"2026-11-30T08:00:00Z","source":"x"}"#, "line 7: field 'value': -1e+300 is not a stand-hour value"),
        (#"{"type":"stand-hour","value":-1,"start":"2026-11-30T08:00:00Z","source":"x"}"#, "line 7: field 'value': -1.0 is not a stand-hour value"),
        (#"{"type":"step-count","value":01,"start":"2026-11-30T08:00:00Z","source":"x"}"#, "line 7: malformed JSON at byte 30: leading zero"),
        (#"["step-count"]"#, "line 7: expected a JSON object"),
        (#"{"type":"step-count","value":1,"start":"2026-11-30T08:00:00Z","source":"x"} trailing"#, "line 7: malformed JSON at byte 77: unexpected text"),
    ])
    func badLinesNameTheLineAndTheField(line: String, expected: String) {
        let message = error(line)
        #expect(message.hasPrefix(expected), "\(message)")
    }

    @Test func jsonStringsDecodeEscapesAndRejectBrokenOnes() throws {
        func parse(_ text: String) throws -> JSONValue {
            var copy = text
            return try copy.withUTF8 { bytes in try JSONLineParser.parse(bytes) }
        }
        #expect(try parse(#""a\"b\\c\/\n\u0041\ud83d\ude00""#) == .string("a\"b\\c/\nA😀"))
        #expect(try parse("[1, -2.5e3, true, null]") == .array([.number(1), .number(-2500), .bool(true), .null]))
        for broken in [#""\ud83d""#, #""\x""#, "\"tab\there\"", "[1,]", "{\"a\" 1}", "tru", "-", "1.", "\"open"] {
            #expect(throws: JSONLineParser.Failure.self, "\(broken)") { try parse(broken) }
        }
    }
}
