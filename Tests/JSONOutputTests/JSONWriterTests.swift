import Foundation
import HealthModel
import JSONOutput
import Testing

@Suite struct JSONWriterTests {
    /// `text` written as a JSON string, read back by Foundation's parser and by the package's
    /// own strict one.
    private func roundTrip(_ text: String) throws -> (written: String, foundation: String?, strict: JSONValue) {
        let written = JSON.quoted(text)
        let foundation = try JSONSerialization.jsonObject(with: Data(written.utf8), options: [.fragmentsAllowed]) as? String
        var line = written
        let strict = try line.withUTF8 { try JSONLineParser.parse($0) }
        return (written, foundation, strict)
    }

    @Test func everyControlCharacterIsEscapedAndReadsBack() throws {
        let named: [UInt32: String] = [0x09: "\\t", 0x0A: "\\n", 0x0D: "\\r"]
        for code in Array(0x00...0x1F) + [0x7F] + Array(0x80...0x9F) {
            let text = "a" + String(Unicode.Scalar(UInt32(code))!) + "b"
            let (written, foundation, strict) = try roundTrip(text)
            let escape = named[UInt32(code)] ?? "\\u00" + String(format: "%02x", code)
            #expect(written == "\"a\(escape)b\"", "U+\(String(code, radix: 16))")
            #expect(!written.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
            #expect(foundation == text)
            #expect(strict == .string(text))
        }
    }

    @Test func quotesAndBackslashesAreEscapedAndNothingElseIs() throws {
        #expect(JSON.quoted("bpm") == "\"bpm\"")
        #expect(JSON.quoted("") == "\"\"")
        #expect(JSON.quoted("a\"b\\c/d") == #""a\"b\\c/d""#)
        #expect(JSON.quoted("é 😀 \u{A0} \u{2028} \u{FEFF}") == "\"é 😀 \u{A0} \u{2028} \u{FEFF}\"")
    }

    /// Non-BMP scalars are written as their 4-byte UTF-8 (never as lone surrogates) and read back
    /// whole, including next to escapes and at both ends of the string.
    @Test func nonBMPScalarsReadBackWhole() throws {
        let samples = ["\u{10000}", "\u{1F600}", "\u{10FFFF}", "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}",
                       "\u{1F600}\n\u{1F600}", "\"\u{1D11E}\\", "x\u{E0001}\u{E0041}y"]
        for text in samples {
            let (written, foundation, strict) = try roundTrip(text)
            #expect(written.utf8.count >= text.utf8.count + 2)
            #expect(foundation == text)
            #expect(strict == .string(text))
        }
    }

    /// Every Unicode scalar (the surrogate code points excepted, which no Swift string can hold),
    /// in strings of 4096 scalars, reads back exactly.
    @Test func everyScalarReadsBack() throws {
        let scalars = (UInt32(0)...0x10FFFF).lazy.compactMap(Unicode.Scalar.init)
        var chunk = String.UnicodeScalarView()
        var checked = 0
        for scalar in scalars {
            chunk.append(scalar)
            if chunk.count == 4096 {
                let text = String(chunk)
                let (_, foundation, strict) = try roundTrip(text)
                #expect(foundation == text && strict == .string(text), "chunk ending at U+\(String(scalar.value, radix: 16))")
                checked += chunk.count
                chunk = String.UnicodeScalarView()
            }
        }
        let text = String(chunk)
        #expect(try roundTrip(text).strict == .string(text))
        checked += chunk.count
        #expect(checked == 0x110000 - 0x800)
    }

    /// Random strings built from the characters that break hand-written JSON: quotes,
    /// backslashes, controls, escapes spelled out, multi-byte and non-BMP scalars.
    @Test func hostileStringsReadBack() throws {
        let pieces: [String] = ["\"", "\\", "\\u0000", "\\\"", "\u{0}", "\u{1B}[2J", "\u{7}", "\u{7F}", "\u{9B}", "\u{85}",
                                "é", "\u{301}", "😀", "\u{10FFFF}", "\u{2028}", "\u{FFFD}", "}", "]", ",", ":", "{\"a\":1}", " ", "\t", "\r\n"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let text = (0..<Int.random(in: 0...12, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            let (written, foundation, strict) = try roundTrip(text)
            #expect(foundation == text, "\(written)")
            #expect(strict == .string(text), "\(written)")
        }
    }

    @Test func documentsHaveCommasOnlyBetweenMembers() throws {
        let text = JSON.text { json in
            json.beginObject()
            json.key("t"); json.value(Int64(1_764_460_801_000_000))
            json.key("none"); json.null()
            json.key(escaping: "we\"ird\nkey"); json.value("v")
            json.key("nested")
            json.beginObject()
            json.key("bpm"); json.value(82)
            json.key("rr"); json.beginArray(); json.value(694); json.value(660); json.endArray()
            json.key("ok"); json.value(true)
            json.endObject()
            json.key("empty"); json.beginArray(); json.endArray()
            json.key("optionals"); json.beginArray()
            json.value(nil as Int?); json.value(nil as String?); json.value(nil as Bool?); json.value(nil as Double?)
            json.value(3 as Int?); json.value("s" as String?); json.value(false as Bool?); json.value(0.5 as Double?)
            json.endArray()
            json.endObject()
        }
        #expect(text == #"{"t":1764460801000000,"none":null,"we\"ird\nkey":"v","nested":{"bpm":82,"rr":[694,660],"ok":true},"empty":[],"optionals":[null,null,null,null,3,"s",false,0.5]}"#)
        #expect(try JSONSerialization.jsonObject(with: Data(text.utf8)) is [String: Any])
    }

    @Test func lineBreaksGoAfterTheCommaAndNotBeforeTheFirstValue() {
        let text = JSON.text { json in
            json.beginArray()
            for value in 1...3 {
                json.lineBreak()
                json.beginObject(); json.key("n"); json.value(value); json.endObject()
            }
            json.endArray()
        }
        #expect(text == "[{\"n\":1},\n{\"n\":2},\n{\"n\":3}]")
        #expect(JSON.text { $0.beginArray(); $0.lineBreak(); $0.endArray() } == "[]")
    }

    /// Doubles: the shortest text that reads back as the same value, whole numbers as integers,
    /// JSON's `null` for what JSON cannot say.
    @Test func doublesAreShortestRoundTripAndNeverInvalid() throws {
        #expect(JSON.text { $0.value(72.0) } == "72")
        #expect(JSON.text { $0.value(-0.0) } == "0")
        #expect(JSON.text { $0.value(0.1) } == "0.1")
        #expect(JSON.text { $0.value(1e15) } == "1000000000000000.0")
        #expect(JSON.text { $0.value(1e16) } == "1e+16")
        #expect(JSON.text { $0.value(123456789012345.0) } == "123456789012345")
        #expect(JSON.text { $0.value(1.5e-7) } == "1.5e-07")
        #expect(JSON.text { $0.value(Double.nan) } == "null")
        #expect(JSON.text { $0.value(-Double.infinity) } == "null")
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5000 {
            let value = Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &generator))
            guard value.isFinite else { continue }
            var text = JSON.text { $0.value(value) }
            // Valid JSON for Foundation's parser (whose digits-to-double conversion is not exact
            // on Linux), and exactly the value for the package's strict parser (strtod).
            #expect(try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) is NSNumber, "\(text)")
            let parsed = try text.withUTF8 { try JSONLineParser.parse($0) }
            #expect(parsed == .number(value) || (value == 0 && parsed == .number(0)), "\(text)")
        }
    }

    @Test func fixedDecimalsRoundLikeC() {
        #expect(JSON.text { $0.value(694.3359375, fractionDigits: 1) } == "694.3")
        #expect(JSON.text { $0.value(0.25, fractionDigits: 1) } == "0.2")   // ties to even on the binary value
        #expect(JSON.text { $0.value(0.35, fractionDigits: 1) } == "0.3")   // 0.35 is 0.34999… in binary
        #expect(JSON.text { $0.value(-2.5, fractionDigits: 0) } == "-2")
        #expect(JSON.text { $0.value(1e300, fractionDigits: 2) }.count == 304)
        #expect(JSON.text { $0.value(Double.infinity, fractionDigits: 1) } == "null")
    }

    @Test func fixedPointKeepsEveryDecimal() {
        #expect(JSON.text { $0.value(Int64(851), decimals: 1) } == "85.1")
        #expect(JSON.text { $0.value(Int64(0), decimals: 1) } == "0.0")
        #expect(JSON.text { $0.value(Int64(-5), decimals: 2) } == "-0.05")
        #expect(JSON.text { $0.value(Int64(120), decimals: 1) } == "12.0")
        #expect(JSON.text { $0.value(Int64.min, decimals: 18) } == "-9.223372036854775808")
    }

    @Test func integersAtEveryLengthMatchSwift() {
        var values: [Int64] = [0, .max, .min, .min + 1]
        var power: Int64 = 1
        for _ in 0..<19 {
            values += [power - 1, power, power + 1, -power, -(power - 1)]
            power = power.multipliedReportingOverflow(by: 10).partialValue
        }
        for value in values { #expect(JSON.text { $0.value(value) } == value.description) }
    }

    @Test func exactDecimalFractionsAndHex() {
        let text = JSON.text { json in
            json.beginArray()
            json.value(numerator: 896, denominator: 256)
            json.value(numerator: 1, denominator: 256)
            json.value(numerator: 12_345, denominator: 10)
            json.value(numerator: 512, denominator: 256)
            json.value(numerator: -3, denominator: 4)
            json.value(numerator: .min, denominator: 1)
            [UInt8]([0x1b, 0x12, 0x00, 0xff]).withUnsafeBytes { json.value(hex: $0) }
            json.value(hex: 0x2a37, digits: 4)
            json.value(hex: 0xabc, digits: 3)
            json.value(verbatim: "rx")
            json.endArray()
        }
        #expect(text == "[3.5,0.00390625,1234.5,2,-0.75,-9223372036854775808,\"1b1200ff\",\"2a37\",\"abc\",\"rx\"]")
    }
}
