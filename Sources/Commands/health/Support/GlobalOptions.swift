/// `--store PATH` and `--person NAME` may come before the subcommand
/// (`health --store x.sqlite --person ana stats step-count`); the subcommands declare them, so
/// they are moved after the subcommand name.
enum GlobalOptions {
    static let movable = ["--store", "--person"]

    static func movingStoreAfterSubcommand(_ arguments: [String]) -> [String] {
        var arguments = arguments
        var moved: [String] = []
        while let first = arguments.first, let option = movable.first(where: { first.hasPrefix($0) }) {
            if first == option, arguments.count >= 2 {
                moved += arguments.prefix(2)
                arguments.removeFirst(2)
            } else if first.hasPrefix(option + "=") {
                moved.append(first)
                arguments.removeFirst()
            } else {
                break
            }
        }
        guard !moved.isEmpty, let subcommand = arguments.first else { return moved + arguments }
        // `health --store x --help`: help needs no store, and a stray `x` must not read as a subcommand.
        if subcommand.hasPrefix("-") { return arguments }
        // A group (`health --store x workouts list`): the option goes after its subcommand, the one that declares it.
        if groups.contains(subcommand), arguments.count >= 2, !arguments[1].hasPrefix("-") {
            return Array(arguments.prefix(2)) + moved + arguments.dropFirst(2)
        }
        return [subcommand] + moved + arguments.dropFirst()
    }

    /// `health chart -o FILE` and `health workouts export … -o PATH`: the one short option, spelt as
    /// its long form (CommandKit knows long options only). Only for those, only as a separate word before `--`.
    static func expandingShortOptions(_ arguments: [String]) -> [String] {
        let workoutsExport = arguments.indices.first { $0 > 0 && arguments[$0] == "export" && arguments[$0 - 1] == "workouts" }
        guard let chart = arguments.firstIndex(of: "chart") ?? workoutsExport else { return arguments }
        var out = arguments
        for index in out.indices where index > chart {
            if out[index] == "--" { break }
            if out[index] == "-o" { out[index] = "--output" }
        }
        return out
    }

    /// Subcommands that only hold subcommands.
    static let groups: Set<String> = ["workouts", "people"]
}
