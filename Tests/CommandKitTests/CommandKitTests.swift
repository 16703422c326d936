import CommandKit
import Testing

private struct Greet: Command {
    static let configuration = CommandConfiguration(
        name: "greet", abstract: "Say hello.",
        options: [.argument("NAME", help: "who"), .flag("loud", help: "shout"),
                  .option("times", value: "N", help: "repeat"), .option("map", value: "H=U", repeats: true, help: "maps")])
    var name: String
    var times: Int
    init(arguments: ParsedArguments) throws(UsageError) {
        name = arguments.required("NAME")
        times = try arguments.value("times", as: "a count") { Int($0) } ?? 1
        guard times > 0 else { throw arguments.usageError("--times must be positive") }
    }
    func run() throws -> ExitCode { times == 7 ? .dataError : .success }
}

private struct Tool: Command {
    static let configuration = CommandConfiguration(name: "tool", abstract: "A tool.", subcommands: [Greet.self])
}

@Suite struct CommandRunnerTests {
    func run(_ args: [String]) -> (ExitCode, String, String) {
        var out = "", err = ""
        let code = CommandRunner.run(Tool.self, arguments: args, output: { out += $0 }, errorOutput: { err += $0 })
        return (code, out, err)
    }

    @Test func runsASubcommand() { #expect(run(["greet", "ann"]).0 == .success) }
    @Test func commandsChooseTheirExitCode() { #expect(run(["greet", "ann", "--times=7"]).0 == .dataError) }
    @Test func unknownOptionIsAUsageError() {
        let (code, _, err) = run(["greet", "ann", "--lound"])
        #expect(code == .usage)
        #expect(err.contains("--lound"))
    }
    @Test func missingArgumentIsAUsageError() { #expect(run(["greet"]).0 == .usage) }
    @Test func validationHappensBeforeRunning() { #expect(run(["greet", "ann", "--times", "0"]).0 == .usage) }
    @Test func badValueNamesTheOption() {
        let (code, _, err) = run(["greet", "ann", "--times", "x"])
        #expect(code == .usage)
        #expect(err.contains("--times 'x'"))
    }
    @Test func helpOnEveryLevel() {
        #expect(run(["--help"]).1.contains("greet"))
        #expect(run(["greet", "--help"]).1.contains("--times N"))
    }
    @Test func unknownSubcommand() { #expect(run(["frobnicate"]).0 == .usage) }
    @Test func unknownSubcommandWithHelpIsStillAUsageError() {
        for arguments in [["frobnicate", "--help"], ["--help", "frobnicate"], ["help", "frobnicate"], ["frobnicate", "--loud", "--help"]] {
            let (code, out, err) = run(arguments)
            #expect(code == .usage, "\(arguments)")
            #expect(out.isEmpty, "\(arguments)")
            #expect(err.contains("unknown subcommand 'frobnicate'"), "\(arguments)")
        }
    }
    @Test func helpNamingAKnownSubcommandShowsItsHelp() {
        for arguments in [["help", "greet"], ["--help", "greet"], ["greet", "--help"]] {
            let (code, out, _) = run(arguments)
            #expect(code == .success, "\(arguments)")
            #expect(out.contains("--times N"), "\(arguments)")
        }
    }
    @Test func noSubcommandShowsHelpAsUsageError() { #expect(run([]).0 == .usage) }
}
