import BandReader
import CommandKit
import SocketSecurity

struct ForgetCommand: Command {
    static let configuration = CommandConfiguration(
        name: "forget",
        abstract: "Remove a band's key from the keystore (its samples stay in the store).",
        options: [.argument("ADDRESS", help: "The address the band was paired at (as 'band devices' lists it)."),
                  .option("keystore", value: "PATH", help: "Keystore file (default $XDG_CONFIG_HOME/bandkit/keys.json).")])

    var key: String
    var keystore: Keystore
    /// The simulator socket, for a `sim:` address: its socket-link bond is forgotten too.
    var socketPath: String?

    init(arguments: ParsedArguments) throws(UsageError) {
        do {
            let address = try BandAddress(parsing: arguments.required("ADDRESS"))
            key = address.keystoreKey
            if case .simulator(let path) = address { socketPath = path }
        } catch {
            throw arguments.usageError("ADDRESS \(error)")
        }
        keystore = Keystore(path: arguments.value("keystore") ?? Keystore.defaultPath())
    }

    mutating func run() throws -> ExitCode {
        let removed: Bool
        do { removed = try keystore.remove(key) } catch { throw RuntimeFailure("band forget: \(error)") }
        if let socketPath {
            do { try SocketBondFile(path: keystore.directory + "/socket-bonds").remove(for: socketPath) } catch {
                throw RuntimeFailure("band forget: \(error)")
            }
        }
        guard removed else { throw RuntimeFailure("band forget: \(key) is not paired (see 'band devices')") }
        writeLine("forgot \(key)")
        return .success
    }
}
