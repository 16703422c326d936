import BandBlueZ
import CommandKit
import Glibc

/// Where `band pair` gets the passkey a device shows on its screen (a PineTime running
/// InfiniTime): `--passkey N` for scripts, else asked for on the terminal when stdin is one.
/// With neither, a passkey request is refused and `band pair` ends with exit 64 naming
/// `--passkey`. A BandKit band pairs Just Works and never asks.
final class PasskeyEntry {
    /// The value of `--passkey`, if given.
    let given: UInt32?
    /// Whether stdin is a terminal someone can type the passkey into.
    let canAsk: Bool
    private let readLine: () -> String?
    private let prompt: (String) -> Void

    init(given: UInt32?, canAsk: Bool,
         readLine: @escaping () -> String? = { Swift.readLine(strippingNewline: true) },
         prompt: @escaping (String) -> Void = { CommandRunner.printError($0) }) {
        self.given = given
        self.canAsk = canAsk
        self.readLine = readLine
        self.prompt = prompt
    }

    /// `--passkey` from the command line and a look at stdin.
    convenience init(option: String?) throws(UsageError) {
        self.init(given: try option.map { (text) throws(UsageError) in try Self.parse(text, what: "--passkey") }, canAsk: isatty(0) == 1)
    }

    /// Whether a passkey can be had at all (the reader then declares a keyboard).
    var isAvailable: Bool { given != nil || canAsk }

    /// Six decimal digits, as the device shows them (leading zeros allowed).
    static func parse(_ text: String, what: String) throws(UsageError) -> UInt32 {
        guard let value = PasskeyPrompt.parse(text) else {
            throw UsageError("band pair: \(what) must be the six digits the device shows (got \(TerminalText.escaped(String(text.prefix(40)))))")
        }
        return value
    }

    /// The passkey for `peer`: the given one, or typed on the terminal (three tries at six
    /// digits); nil when there is no way to get one or the terminal closed.
    func passkey(for peer: String) -> UInt32? {
        if let given { return given }
        guard canAsk else { return nil }
        return PasskeyPrompt(readLine: readLine, prompt: { self.prompt("band: " + $0) }).ask(for: peer)
    }

    /// What `band pair` says when the link failed after the agent's `failure`: exit 64 when a
    /// passkey was needed and there was no way to ask for one, exit 1 for a wrong passkey.
    func commandFailure(after failure: PairingRefusal?) -> (any CommandFailure)? {
        switch failure {
        case .passkeyNeeded(let peer)? where !isAvailable:
            return UsageError("band pair: \(TerminalText.escaped(peer)) asks for the passkey its screen shows and stdin is not a terminal: give it with --passkey N")
        case .passkeyNeeded(let peer)?:
            return RuntimeFailure("band: pairing with \(TerminalText.escaped(peer)) failed: no passkey was entered; nothing stored")
        case .passkeyRejected(let peer, let why)?:
            return RuntimeFailure("band: pairing with \(TerminalText.escaped(peer)) failed: the device refused the passkey (\(why)), it is not the one its screen showed; nothing stored, run band pair again")
        case .failed, nil:
            return nil
        }
    }
}
