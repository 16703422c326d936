/// A Bluetooth passkey (SMP passkey entry: the six digits a device shows on its screen), from a
/// command-line value or typed on the terminal.
public struct PasskeyPrompt {
    private let readLine: () -> String?
    private let prompt: (String) -> Void

    /// `readLine` gives the next line typed (nil at end of input); `prompt` shows a line to the user.
    public init(readLine: @escaping () -> String?, prompt: @escaping (String) -> Void) {
        self.readLine = readLine
        self.prompt = prompt
    }

    /// Six decimal digits (leading zeros allowed, blanks around them ignored) → 0…999999.
    public static func parse(_ text: String) -> UInt32? {
        let words = text.split(whereSeparator: \.isWhitespace)
        guard words.count == 1, let digits = words.first, digits.count == 6,
              digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return UInt32(digits)
    }

    /// Asks for the passkey `device` shows, up to `tries` times; nil when the input ends or no
    /// try was six digits.
    public func ask(for device: String, tries: Int = 3) -> UInt32? {
        for _ in 0..<tries {
            prompt("\(TerminalText.escaped(device)) shows a passkey on its screen; type its six digits and press Enter:")
            guard let line = readLine() else { return nil }
            if let value = Self.parse(line) { return value }
            prompt("that is not six digits")
        }
        return nil
    }
}
