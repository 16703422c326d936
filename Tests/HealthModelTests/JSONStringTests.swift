import HealthModel
import Testing

@Suite struct JSONStringTests {
    @Test func escapesQuotesBackslashesAndControlCharactersOnly() {
        #expect(JSONString.quoted("bpm") == "\"bpm\"")
        #expect(JSONString.quoted("a\"b\\c\nd\re\tf\u{01}\u{1F}é😀") == "\"a\\\"b\\\\c\\nd\\re\\tf\\u0001\\u001fé😀\"")
        var out = "["
        JSONString.appendQuoted("x", to: &out)
        #expect(out == "[\"x\"")
    }

    /// Whatever the text, the parser reads back exactly the string that was quoted.
    @Test func everyQuotedStringParsesBackToItself() throws {
        let samples = ["", "plain", "\u{0}\u{7}\u{1F} \"\\/", "línea\nnueva", String((0..<0x80).map { Character(Unicode.Scalar($0)!) })]
        for text in samples {
            var line = JSONString.quoted(text)
            let parsed = try line.withUTF8 { try JSONLineParser.parse($0) }
            #expect(parsed == .string(text))
        }
    }
}
