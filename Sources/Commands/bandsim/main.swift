import CommandKit
import HealthStore
import HealthStorePostgreSQL

struct Root: Command {
    static let configuration = CommandConfiguration(
        name: "bandsim", abstract: "Simulated BLE smart band: firmware, trace decoding and replay.",
        subcommands: [
            DecodeCommand.self,
            GenerateTraceCommand.self,
            ReplayCommand.self,
            ServeCommand.self,
        ])
}

// Stores (--store, --into, BANDKIT_STORE) may be postgresql:// URLs as well as files.
HealthStore.enablePostgreSQL()
CommandRunner.main(Root.self)
