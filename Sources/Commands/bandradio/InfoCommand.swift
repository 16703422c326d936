import BandBlueZ
import CommandKit

/// `bandradio info`: prepares the adapter for LE (as `btmgmt power/le/bondable/connectable`)
/// and prints its address and settings.
struct InfoCommand: Command {
    static let configuration = CommandConfiguration(
        name: "info", abstract: "Power the adapter up for LE and print its address and settings.",
        options: [RadioOptions.hci, .flag("no-prepare", help: "Only print; change no setting.")])

    let adapterName: String
    let prepare: Bool

    init(arguments: ParsedArguments) throws(UsageError) {
        adapterName = try RadioOptions.adapter(arguments)
        prepare = !arguments.flag("no-prepare")
    }

    func run() throws -> ExitCode {
        let adapter = try BlueZAdapter(adapterName)
        if prepare { try adapter.prepareForLowEnergy() }
        let info = try adapter.information()
        say("\(adapter.name) address \(info.address) settings [\(info.currentSettings)] name '\(info.name)'")
        return .success
    }
}
