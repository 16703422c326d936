/// One option or argument a command accepts, declared once and used for parsing, validation and help.
public struct OptionSpec: Sendable {
    public enum Kind: Sendable {
        /// `--name` with no value.
        case flag
        /// `--name VALUE` or `--name=VALUE`; may repeat when `repeats` is set.
        case option(valueName: String, repeats: Bool)
        /// A positional argument; `optional` ones may be omitted, `variadic` takes the rest.
        case positional(optional: Bool, variadic: Bool)
    }

    public var name: String
    public var kind: Kind
    public var help: String

    public static func flag(_ name: String, help: String) -> OptionSpec {
        OptionSpec(name: name, kind: .flag, help: help)
    }

    public static func option(_ name: String, value: String, repeats: Bool = false, help: String) -> OptionSpec {
        OptionSpec(name: name, kind: .option(valueName: value, repeats: repeats), help: help)
    }

    public static func argument(_ name: String, optional: Bool = false, variadic: Bool = false, help: String) -> OptionSpec {
        OptionSpec(name: name, kind: .positional(optional: optional, variadic: variadic), help: help)
    }

    var isPositional: Bool { if case .positional = kind { true } else { false } }
    var takesValue: Bool { if case .option = kind { true } else { false } }

    var synopsis: String {
        switch kind {
        case .flag: return "[--\(name)]"
        case .option(let value, let repeats): return "[--\(name) \(value)]" + (repeats ? "..." : "")
        case .positional(let optional, let variadic):
            let core = name + (variadic ? "..." : "")
            return optional ? "[\(core)]" : core
        }
    }

    var label: String {
        switch kind {
        case .flag: return "--\(name)"
        case .option(let value, _): return "--\(name) \(value)"
        case .positional: return name
        }
    }
}
