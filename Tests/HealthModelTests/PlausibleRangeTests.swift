import Foundation
import HealthModel
import HealthTestSupport
import Testing

/// Import lines are bounded: documented dates, durations per type and values per type.
@Suite struct PlausibleRangeTests {
    func error(_ line: String) -> String {
        var text = line
        let context = ImportRecord.Context()
        do {
            _ = try text.withUTF8 { bytes in try ImportRecord(line: bytes, number: 4, context: context) }
            return "accepted"
        } catch let error as ImportError {
            return error.description
        } catch {
            return "unexpected \(error)"
        }
    }

    func line(type: String = "step-count", value: String = "10", unit: String? = nil, start: String = "2026-11-30T08:00:00Z",
              end: String = "2026-11-30T08:01:00Z") -> String {
        #"{"type":"\#(type)","value":\#(value),\#(unit.map { #""unit":"\#($0)","# } ?? "")"start":"\#(start)","end":"\#(end)","source":"x"}"#
    }

    @Test func theReviewsYearZeroToYear9999SampleIsRefused() {
        let message = error(line(start: "0000-01-01T00:00:00Z", end: "9999-12-31T23:59:59Z"))
        #expect(message.hasPrefix("line 4: field 'start': 0000-01-01T00:00:00Z is outside the plausible 1900-01-01T00:00:00Z ..< 2100-01-01T00:00:00Z"), "\(message)")
        #expect(error(line(start: "1899-12-31T23:59:59Z", end: "1900-01-01T00:00:00Z")).contains("field 'start'"))
        #expect(error(line(start: "2099-12-31T23:59:00Z", end: "2100-01-01T00:00:01Z")).contains("is after 2100-01-01T00:00:00Z"))
        #expect(error(line(start: "1900-01-01T00:00:00Z", end: "1900-01-01T00:01:00Z")) == "accepted")
        #expect(error(line(start: "2099-12-31T23:59:00Z", end: "2100-01-01T00:00:00Z")) == "accepted")
    }

    @Test func durationsAreBoundedPerType() {
        #expect(error(line(start: "2026-11-01T00:00:00Z", end: "2026-11-08T00:00:00Z")) == "accepted")  // a week of steps
        #expect(error(line(start: "2026-11-01T00:00:00Z", end: "2026-11-08T00:00:01Z"))
                == "line 4: field 'end': the step-count sample lasts 604801 s, longer than the 7 d a sample of this type may cover")
        #expect(error(line(type: "heart-rate", value: "60", start: "2026-11-01T00:00:00Z", end: "2026-11-02T00:00:00Z")) == "accepted")
        #expect(error(line(type: "heart-rate", value: "60", start: "2026-11-01T00:00:00Z", end: "2026-11-02T00:00:01Z")).contains("longer than the 1 d"))
        #expect(error(#"{"type":"stand-hour","value":"stood","start":"2026-11-01T08:00:00Z","end":"2026-11-01T10:00:00Z","source":"x"}"#)
                    .contains("longer than the 1 h"))
    }

    @Test func valuesAreBoundedPerTypeInTheCanonicalUnit() {
        #expect(error(line(value: "-5")) == "line 4: field 'value': step-count -5 count is outside the plausible 0...1000000 count")
        #expect(error(line(value: "1e300")).contains("step-count 1e+300 count is outside the plausible 0...1000000 count"))
        #expect(error(line(type: "heart-rate", value: "-60")).contains("outside the plausible 1...480"))
        #expect(error(line(type: "heart-rate", value: "0")).contains("outside the plausible 1...480"))
        #expect(error(line(type: "height", value: "1e-200")).contains("outside the plausible"))
        #expect(error(line(type: "height", value: "180", unit: "cm")) == "accepted")  // converted before the check
        #expect(error(line(type: "height", value: "30", unit: "ft")).contains("outside the plausible 0.2...3 m"))
        #expect(error(line(type: "body-temperature", value: "98.6", unit: "degF")) == "accepted")
        #expect(error(line(type: "distance-cycling", value: "4800", unit: "km", start: "2026-11-01T00:00:00Z", end: "2026-11-08T00:00:00Z")) == "accepted")
    }

    /// Every type has a range that holds ordinary values and refuses negative and absurd ones.
    @Test(arguments: QuantityType.all) func everyTypeHasADocumentedRange(_ type: QuantityType) {
        let range = type.plausibleRange
        #expect(range.values.lowerBound >= 0 && range.values.upperBound < 1e7)
        #expect(range.problem(value: -1, unit: type.canonicalUnit) != nil)
        #expect(range.problem(value: 1e300, unit: type.canonicalUnit) != nil)
        #expect(range.problem(value: .infinity, unit: type.canonicalUnit) != nil)
        #expect(range.maximumDuration == (type.aggregation == .cumulative ? 7 * 86_400 : 86_400))
    }
}
