import CommandKit
import HealthStore
import HealthStorePostgreSQL
#if canImport(Glibc)
import Glibc
#endif

/// `health`: the HealthKit-like store on the command line (docs/architecture.md, "HealthModel / HealthStore").
struct Health: Command {
    static let configuration = CommandConfiguration(
        name: "health", abstract: "A HealthKit-like health store: samples, merged statistics, sources, grants.",
        discussion: """
            Global options: --store PATH (or BANDKIT_STORE); default $XDG_DATA_HOME/bandkit/health.sqlite.
            --person NAME: whose data (default: the store's default person; 'health people list').
            """,
        subcommands: [AddCommand.self, BMICommand.self, ImportCommand.self, ExportCommand.self, QueryCommand.self,
                      StatsCommand.self, SourcesCommand.self, PriorityCommand.self, ProfileCommand.self,
                      GrantCommand.self, RevokeCommand.self, ChangesCommand.self, SleepCommand.self, ChartCommand.self, ServeCommand.self,
                      WorkoutsCommand.self, PeopleCommand.self])
}

// --store and BANDKIT_STORE accept postgresql:// URLs as well as files.
HealthStore.enablePostgreSQL()
let code = CommandRunner.run(Health.self, arguments: GlobalOptions.movingStoreAfterSubcommand(GlobalOptions.expandingShortOptions(Array(CommandLine.arguments.dropFirst()))))
exit(code.rawValue)
