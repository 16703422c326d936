import BandBlueZ
import BandWire
import CommandKit

/// `bandradio disconnect`: drops the LE link to a peer from this adapter's side (mgmt
/// Disconnect, reason Remote User Terminated Connection) — a forced link drop that leaves
/// both controllers running.
struct DisconnectCommand: Command {
    static let configuration = CommandConfiguration(
        name: "disconnect", abstract: "Drop the LE link to a peer (mgmt Disconnect).",
        options: [RadioOptions.hci, .option("peer", value: "ADDRESS", help: "The connected peer, AA:BB:CC:DD:EE:FF[/random].")])

    let adapterName: String
    let peer: LEAddress

    init(arguments: ParsedArguments) throws(UsageError) {
        adapterName = try RadioOptions.adapter(arguments)
        guard let peer = try RadioOptions.peer(arguments, "peer") else { throw arguments.usageError("--peer ADDRESS is required") }
        self.peer = peer
    }

    func run() throws -> ExitCode {
        try BlueZAdapter(adapterName).disconnect(peer)
        say("\(adapterName) disconnected \(peer)")
        return .success
    }
}
