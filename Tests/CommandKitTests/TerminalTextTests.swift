import CommandKit
import Testing

/// One escaping function for every text output: names from outside never reach a terminal raw.
@Suite struct TerminalTextTests {
    @Test func theReviewsBandNameStaysOneHarmlessLine() {
        let name = "Band\u{1B}[2J\n synced 99999 minutes into /etc/passwd"
        #expect(TerminalText.escaped(name) == #"Band\e[2J\n synced 99999 minutes into /etc/passwd"#)
    }

    @Test func controlCharactersAreEscapedAsCSpellsThem() {
        #expect(TerminalText.escaped("a\tb\rc\u{07}d\u{7F}e\u{0}") == #"a\tb\rc\x07d\x7fe\x00"#)
        #expect(TerminalText.escaped("back\\slash") == #"back\\slash"#, "a backslash is escaped, so \\e in a name is not an ESC")
        #expect(TerminalText.escaped("csi\u{9B}2J") == #"csi\u{9b}2J"#, "C1 controls: U+009B is a CSI on some terminals")
        #expect(TerminalText.escaped("evil\u{202E}txt.exe") == #"evil\u{202e}txt.exe"#, "bidirectional override")
    }

    @Test func ordinaryTextIsUnchanged() {
        for text in ["com.example.app", "Café Band 🚲", "Ünïcødé", "", "BandKit Band", "日本語"] {
            #expect(TerminalText.escaped(text) == text)
        }
    }

    @Test func everyScalarBelow0xA0IsEitherPrintableASCIIOrEscaped() {
        for value in 0..<0xA0 {
            let scalar = Unicode.Scalar(UInt8(value))
            let escaped = TerminalText.escaped(String(scalar))
            let printable = (0x20..<0x7F).contains(value) && value != 0x5C
            #expect(escaped.unicodeScalars.allSatisfy { (0x20..<0x7F).contains($0.value) }, "\(value)")
            #expect((escaped == String(scalar)) == printable, "\(value): \(escaped)")
        }
    }

    @Test func messagesKeepTheirLayoutButNoOtherControl() {
        #expect(TerminalText.message("line one\n\tindented \u{1B}[31mred") == "line one\n\tindented \\e[31mred")
        #expect(TerminalText.message(#"C:\path"#) == #"C:\path"#)
    }

    @Test func quotesAreEscapedOnlyWhenAskedFor() {
        #expect(TerminalText.escaped("say \"hi\"") == "say \"hi\"")
        #expect(TerminalText.escaped("say \"hi\"", quotes: true) == "say \\\"hi\\\"")
    }

    @Test func truncationKeepsWholeScalarsWithinTheLimit() {
        #expect(TerminalText.truncated("short", maximumBytes: 5) == "short")
        let cut = TerminalText.truncated("ééééé", maximumBytes: 8)
        #expect(cut == "éé…")
        #expect(cut.utf8.count <= 8)
    }
}

/// `band pair`'s passkey on the terminal: a watch that shows a passkey is bonded only with the six
/// digits typed, so nothing else may pass for them.
@Suite struct PasskeyPromptTests {
    @Test func sixDigitsAreAPasskeyAndNothingElseIs() {
        #expect(PasskeyPrompt.parse("123456") == 123_456)
        #expect(PasskeyPrompt.parse("000042") == 42)
        #expect(PasskeyPrompt.parse(" 999999 \r") == 999_999)
        for bad in ["", "12345", "1234567", "12a456", "-12345", "+12345", "123 456", "１２３４５６", "12345\u{1B}"] {
            #expect(PasskeyPrompt.parse(bad) == nil, "\(bad)")
        }
    }

    @Test func asksAgainUntilSixDigitsAreTyped() {
        var lines = ["12", "abcdef", "654321"][...]
        var shown: [String] = []
        let prompt = PasskeyPrompt(readLine: { lines.popFirst() }, prompt: { shown.append($0) })
        #expect(prompt.ask(for: "AA:BB:CC:DD:EE:FF") == 654_321)
        #expect(shown.filter { $0.contains("AA:BB:CC:DD:EE:FF shows a passkey") }.count == 3)
        #expect(shown.filter { $0 == "that is not six digits" }.count == 2)
    }

    @Test func theEndOfInputOrThreeWrongTriesGiveNoPasskey() {
        #expect(PasskeyPrompt(readLine: { nil }, prompt: { _ in }).ask(for: "x") == nil)
        var count = 0
        #expect(PasskeyPrompt(readLine: { count += 1; return "nope" }, prompt: { _ in }).ask(for: "x") == nil)
        #expect(count == 3)
    }

    @Test func aDeviceNameReachesTheTerminalEscaped() {
        var shown: [String] = []
        _ = PasskeyPrompt(readLine: { "123456" }, prompt: { shown.append($0) }).ask(for: "Watch\u{1B}[2J")
        #expect(shown.first?.contains("\u{1B}") == false)
    }
}
