import BandKitSystem

/// The one escaper of text from outside the program, from the system layer (the gateway's log
/// lines and service status use it too), under the name every command already uses.
public typealias TerminalText = BandKitSystem.TerminalText

extension String {
    /// ``TerminalText/escaped(_:quotes:)``: this text, safe to print.
    public var terminalEscaped: String { TerminalText.escaped(self) }
}
