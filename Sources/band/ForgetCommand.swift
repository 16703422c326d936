import BandReader
import CommandKit

struct ForgetCommand: Command {
    static let configuration = CommandConfiguration(
        name: "forget",
        abstract: "Remove a band's key from the keystore (its samples stay in the store).",
        options: [.argument("ADDRESS", help: "The address the band was paired at (as 'band devices' lists it)."),
                  .option("keystore", value: "PATH", help: "Keystore file (default $XDG_CONFIG_HOME/bandkit/keys.json).")])

    var key: String
    var keystore: Keystore

    init(arguments: ParsedArguments) throws(UsageError) {
        do { key = try BandAddress(parsing: arguments.required("ADDRESS")).keystoreKey } catch {
            throw arguments.usageError("ADDRESS \(error)")
        }
        keystore = Keystore(path: arguments.value("keystore") ?? Keystore.defaultPath())
    }

    mutating func run() throws -> ExitCode {
        let removed: Bool
        do { removed = try keystore.remove(key) } catch { throw RuntimeFailure("band forget: \(error)") }
        guard removed else { throw RuntimeFailure("band forget: \(key) is not paired (see 'band devices')") }
        writeLine("forgot \(key)")
        return .success
    }
}
