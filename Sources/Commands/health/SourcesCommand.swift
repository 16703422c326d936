import CommandKit
import HealthModel
import HealthStore

/// `health sources [TYPE]`: who wrote what, in priority order.
struct SourcesCommand: Command {
    static let configuration = CommandConfiguration(
        name: "sources", abstract: "List the sources of a type (or of all types) in priority order.",
        options: [.argument("TYPE", optional: true, help: "Sample type (default: all)."), storeOption, personOption])

    var type: SampleType?
    var storePath: StoreChoice

    init(arguments: ParsedArguments) throws(UsageError) {
        type = try arguments.argument("TYPE").map { name throws(UsageError) in try arguments.sampleType(name) }
        storePath = arguments.storePath
    }

    func run() throws -> ExitCode {
        let store = try openStore(storePath, readOnly: true)
        let sources = try store.sources(of: type)
        if sources.isEmpty {
            StandardOutput.shared.line("no samples" + (type.map { " of \($0)" } ?? ""))
            return .success
        }
        for source in sources {
            let kind = source.source == AppIdentity.owner.id ? "manual entries" : source.recordsDevice ? "device" : "app"
            StandardOutput.shared.line("\(source.priority). \(source.source.terminalEscaped)  \(source.sampleCount) samples  (\(kind))")
        }
        return .success
    }
}

/// `health priority TYPE SOURCE...`: the order in which sources count in merged totals.
struct PriorityCommand: Command {
    static let configuration = CommandConfiguration(
        name: "priority", abstract: "Show or set the source priority of a type (first wins where sources overlap).",
        discussion: """
            Without sources, prints the effective order. Sources not listed keep the default order after the listed ones.
            The order is the store's, shared by all its people (so there is no --person).
            """,
        options: [.argument("TYPE", help: "Sample type."), .argument("SOURCE", optional: true, variadic: true, help: "Sources, best first."),
                  storeOption])

    var type: SampleType
    var sources: [String]
    var storePath: StoreChoice

    init(arguments: ParsedArguments) throws(UsageError) {
        type = try arguments.sampleType(arguments.required("TYPE"))
        sources = arguments.arguments("SOURCE")
        if Set(sources).count != sources.count { throw arguments.usageError("a source is listed twice") }
        storePath = arguments.storePath
    }

    func run() throws -> ExitCode {
        let store = try openStore(storePath, readOnly: sources.isEmpty)
        if !sources.isEmpty { try store.setSourcePriority(for: type, sources: sources) }
        for (index, source) in try store.sourcePriority(for: type).enumerated() { StandardOutput.shared.line("\(index + 1). \(source.terminalEscaped)") }
        return .success
    }
}
