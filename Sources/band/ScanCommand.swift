import BandReader
import CommandKit

struct ScanCommand: Command {
    static let configuration = CommandConfiguration(
        name: "scan",
        abstract: "Scan for LE devices advertising heart rate or the band's activity service.",
        options: [.option("timeout", value: "S", help: "Seconds to scan (default 10)."),
                  .option("hci", value: "hciN", help: "Bluetooth adapter (default hci0)."),
                  ReaderOptions.jsonSpec])

    var timeout: Duration
    var adapter: String
    var json: Bool

    init(arguments: ParsedArguments) throws(UsageError) {
        timeout = try arguments.value("timeout", as: "a number of seconds", parseDuration) ?? .seconds(10)
        adapter = arguments.value("hci") ?? "hci0"
        json = arguments.flag("json")
    }

    mutating func run() throws -> ExitCode {
        throw RuntimeFailure("band scan: Bluetooth scanning needs the BlueZ link layer, which this build does not include yet")
    }
}
