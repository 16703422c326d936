import BandBlueZ
import CommandKit

/// `bandradio power`: powers the adapter off or on (the radio CI's forced link drop).
struct PowerCommand: Command {
    static let configuration = CommandConfiguration(
        name: "power", abstract: "Power the adapter off or on (mgmt Set Powered).",
        options: [RadioOptions.hci, .argument("state", help: "on or off")])

    let adapterName: String
    let on: Bool

    init(arguments: ParsedArguments) throws(UsageError) {
        adapterName = try RadioOptions.adapter(arguments)
        switch arguments.required("state") {
        case "on": on = true
        case "off": on = false
        case let other: throw arguments.usageError("state '\(other)' must be on or off")
        }
    }

    func run() throws -> ExitCode {
        let settings = try BlueZAdapter(adapterName).setPowered(on)
        say("\(adapterName) powered \(on ? "on" : "off"): [\(settings)]")
        return .success
    }
}
