import CommandKit
import HealthStore
import HealthStorePostgreSQL

struct Root: Command {
    static let configuration = CommandConfiguration(
        name: "band",
        abstract: "Pair a BLE band or heart-rate strap, stream live readings, sync minute history into the health store.",
        discussion: """
            ADDRESS is AA:BB:CC:DD:EE:FF (an LE device through BlueZ; --random for a random address,
            --hci hciN for another adapter) or sim:PATH (a simulated band, 'bandsim serve').
            Keys live in $XDG_CONFIG_HOME/bandkit/keys.json (mode 0600); samples go to the health
            store (--store PATH, default $BANDKIT_STORE or $XDG_DATA_HOME/bandkit/health.sqlite).
            """,
        subcommands: [ScanCommand.self, PairCommand.self, StreamCommand.self, SyncCommand.self, GatewayCommand.self, StatusCommand.self,
                      DevicesCommand.self, ForgetCommand.self])
}

// Stores (--store, --into, BANDKIT_STORE) may be postgresql:// URLs as well as files.
HealthStore.enablePostgreSQL()
CommandRunner.main(Root.self)
