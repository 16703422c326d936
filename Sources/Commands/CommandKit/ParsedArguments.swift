/// The arguments of one command after they were checked against its ``OptionSpec``s.
///
/// Parsing is separate from running: every check on the shape of the command line is done
/// here or in ``Command/init(arguments:)`` and reported as a ``UsageError`` (exit 64) before
/// any work starts.
public struct ParsedArguments: Sendable {
    public let commandPath: String
    var flags: Set<String> = []
    var values: [String: [String]] = [:]
    var positionals: [String: [String]] = [:]

    init(commandPath: String, arguments: [String], specs: [OptionSpec]) throws(UsageError) {
        self.commandPath = commandPath
        var byName: [String: OptionSpec] = [:]
        for spec in specs where !spec.isPositional { byName[spec.name] = spec }
        var loose: [String] = []
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || !argument.hasPrefix("--") || argument == "-" {
                if !onlyPositionals, argument.hasPrefix("-"), argument.count > 1, argument != "-",
                   Double(argument) == nil {
                    throw UsageError("\(commandPath): unknown option '\(argument)' (options are spelled --name; see --help)")
                }
                loose.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            var name = String(argument.dropFirst(2))
            var inlineValue: String? = nil
            if let eq = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            guard let spec = byName[name] else {
                throw UsageError("\(commandPath): unknown option '--\(name)' (see '\(commandPath) --help')")
            }
            switch spec.kind {
            case .flag:
                guard inlineValue == nil else { throw UsageError("\(commandPath): --\(name) takes no value") }
                flags.insert(name)
            case .option(let valueName, let repeats):
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard index < arguments.count else {
                        throw UsageError("\(commandPath): --\(name) needs a value (\(valueName))")
                    }
                    value = arguments[index]
                    index += 1
                }
                if !repeats, values[name] != nil {
                    throw UsageError("\(commandPath): --\(name) given more than once")
                }
                values[name, default: []].append(value)
            case .positional:
                break
            }
        }
        for spec in specs where spec.isPositional {
            guard case .positional(let optional, let variadic) = spec.kind else { continue }
            if loose.isEmpty {
                if !optional { throw UsageError("\(commandPath): missing argument \(spec.name) (see '\(commandPath) --help')") }
                continue
            }
            if variadic {
                positionals[spec.name] = loose
                loose = []
            } else {
                positionals[spec.name] = [loose.removeFirst()]
            }
        }
        if let extra = loose.first {
            throw UsageError("\(commandPath): unexpected argument '\(extra)' (see '\(commandPath) --help')")
        }
    }

    public func flag(_ name: String) -> Bool { flags.contains(name) }
    public func value(_ name: String) -> String? { values[name]?.last }
    public func values(_ name: String) -> [String] { values[name] ?? [] }
    public func argument(_ name: String) -> String? { positionals[name]?.first }
    public func arguments(_ name: String) -> [String] { positionals[name] ?? [] }

    /// A required positional (the parser already enforced its presence).
    public func required(_ name: String) -> String { positionals[name]?.first ?? "" }

    /// Parses a value with `transform`, turning nil into a usage error that names the option.
    public func value<T>(_ name: String, as what: String, _ transform: (String) -> T?) throws(UsageError) -> T? {
        guard let raw = value(name) else { return nil }
        guard let parsed = transform(raw) else {
            throw UsageError("\(commandPath): --\(name) '\(raw)' is not \(what)")
        }
        return parsed
    }

    /// A usage error attributed to this command.
    public func usageError(_ message: String) -> UsageError {
        UsageError("\(commandPath): \(message)")
    }
}
