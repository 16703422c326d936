#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a command presents itself: name, one-line abstract, longer discussion, its options and subcommands.
public struct CommandConfiguration: Sendable {
    public var name: String
    public var abstract: String
    public var discussion: String
    public var options: [OptionSpec]
    public var subcommands: [any Command.Type]

    public init(name: String, abstract: String, discussion: String = "",
                options: [OptionSpec] = [], subcommands: [any Command.Type] = []) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.options = options
        self.subcommands = subcommands
    }
}

/// A command: validated from its arguments, then run.
///
/// `init(arguments:)` does all validation (exit 64 on failure) and `run()` does the work.
/// A command with subcommands and no work of its own only needs its configuration.
public protocol Command: SendableMetatype {
    static var configuration: CommandConfiguration { get }
    init(arguments: ParsedArguments) throws(UsageError)
    /// Does the work. Throw a ``CommandFailure`` to choose the exit code; other errors exit 1.
    mutating func run() throws -> ExitCode
}

extension Command {
    public init(arguments: ParsedArguments) throws(UsageError) {
        throw UsageError("\(arguments.commandPath): a subcommand is required (see '\(arguments.commandPath) --help')")
    }
    public mutating func run() throws -> ExitCode { .usage }
}

/// Runs a command tree against `CommandLine.arguments` and exits.
public enum CommandRunner {
    /// Parses and runs, then flushes `standardOutput`, returning the exit code (testable; does
    /// not exit). A write error on standard output, during the command or at the final flush,
    /// is reported on `errorOutput` and makes a successful command exit 1 (a failed one keeps
    /// its own code).
    public static func run(_ root: any Command.Type, arguments: [String],
                           standardOutput: StandardOutput = .shared,
                           output: ((String) -> Void)? = nil,
                           errorOutput: (String) -> Void = { CommandRunner.printError($0) }) -> ExitCode {
        let output = output ?? { standardOutput.line($0) }
        var path = root.configuration.name
        var code = dispatch(root, arguments: arguments, path: &path, output: output, errorOutput: errorOutput)
        do throws(OutputError) {
            try standardOutput.flush()
        } catch {
            errorOutput("\(path): cannot write to standard output: \(error.reason)")
            if code == .success { code = .failure }
        }
        return code
    }

    private static func dispatch(_ root: any Command.Type, arguments: [String], path: inout String,
                                 output: (String) -> Void, errorOutput: (String) -> Void) -> ExitCode {
        var command: any Command.Type = root
        var rest = arguments[...]
        while let next = rest.first, !next.hasPrefix("-"),
              let sub = command.configuration.subcommands.first(where: { $0.configuration.name == next }) {
            command = sub
            path += " " + next
            rest = rest.dropFirst()
        }
        if !command.configuration.subcommands.isEmpty {
            // The word naming a subcommand, wherever `--help` or `help` put it: `tool SUB`,
            // `tool SUB --help`, `tool --help SUB`, `tool help SUB`. One that does not exist is
            // a usage error even when help was asked for, so a script can tell a missing
            // command from a present one.
            let words = rest.first == "help" || rest.first == "--help" ? rest.dropFirst() : rest
            if let word = words.first, !word.hasPrefix("-") {
                guard let sub = command.configuration.subcommands.first(where: { $0.configuration.name == word }) else {
                    errorOutput("\(path): unknown subcommand '\(word)' (see '\(path) --help')\n\n" + help(for: command, path: path))
                    return .usage
                }
                output(help(for: sub, path: path + " " + word))  // `help SUB` or `--help SUB`
                return .success
            }
            if rest.contains("--help") || rest.first == "help" {
                output(help(for: command, path: path))
                return .success
            }
            if rest.isEmpty {
                errorOutput(help(for: command, path: path))
                return .usage
            }
        } else if rest.contains("--help") {
            output(help(for: command, path: path))
            return .success
        }
        do {
            let parsed = try ParsedArguments(commandPath: path, arguments: Array(rest), specs: command.configuration.options)
            var instance = try command.init(arguments: parsed)
            return try instance.run()
        } catch let failure as any CommandFailure {
            errorOutput("\(failure)")
            return failure.exitCode
        } catch let code as ExitCode {
            return code
        } catch {
            errorOutput("\(path): \(error)")
            return .failure
        }
    }

    /// Entry point for `@main`: runs and exits the process.
    public static func main(_ root: any Command.Type) -> Never {
        let code = run(root, arguments: Array(CommandLine.arguments.dropFirst()))
        exit(code.rawValue)
    }

    /// Writes a message to standard error. Control characters that are not its own layout
    /// (line breaks, tabs) are escaped (``TerminalText/message(_:)``): an escape sequence in a
    /// name never reaches the terminal raw, even where the caller forgot to escape a field.
    public static func printError(_ message: String) {
        var text = TerminalText.message(message)
        if !text.hasSuffix("\n") { text += "\n" }
        _ = text.withCString { write(2, $0, strlen($0)) }
    }

    /// Help text generated from the configuration.
    public static func help(for command: any Command.Type, path: String) -> String {
        let config = command.configuration
        var lines: [String] = []
        lines.append("\(path) — \(config.abstract)")
        lines.append("")
        if config.subcommands.isEmpty {
            let synopsis = config.options.filter(\.isPositional).map(\.synopsis)
                + config.options.filter { !$0.isPositional }.map(\.synopsis)
            lines.append("Usage: \(path) \(synopsis.joined(separator: " "))")
        } else {
            lines.append("Usage: \(path) <subcommand> [options]")
            lines.append("")
            lines.append("Subcommands:")
            let width = config.subcommands.map { $0.configuration.name.count }.max() ?? 0
            for sub in config.subcommands {
                let name = sub.configuration.name
                lines.append("  \(name)\(String(repeating: " ", count: width - name.count))  \(sub.configuration.abstract)")
            }
            lines.append("")
            lines.append("Run '\(path) <subcommand> --help' for details.")
        }
        if !config.options.isEmpty {
            lines.append("")
            lines.append("Arguments and options:")
            let width = config.options.map { $0.label.count }.max() ?? 0
            for spec in config.options {
                lines.append("  \(spec.label)\(String(repeating: " ", count: width - spec.label.count))  \(spec.help)")
            }
            lines.append("  --help\(String(repeating: " ", count: max(0, width - 6)))  Show this help.")
        }
        if !config.discussion.isEmpty {
            lines.append("")
            lines.append(config.discussion)
        }
        lines.append("")
        lines.append("Exit codes: 0 ok, 1 failure, 64 usage error, 65 bad input data.")
        return lines.joined(separator: "\n")
    }
}
