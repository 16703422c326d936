import BandLink
import BandReader
import CommandKit

struct PairCommand: Command {
    static let configuration = CommandConfiguration(
        name: "pair",
        abstract: "Pair with a band: link security, then the band's key exchange; the key goes to the keystore.",
        discussion: """
            The wearer confirms the pairing on the band. A plain heart-rate strap needs no pairing.

            On Bluetooth, pairing first raises link security (BT_SECURITY medium), so the kernel runs
            SMP. When no bluetoothd agent is running, nobody else would answer the kernel's
            confirmation request, so band answers it itself on the management socket (Just Works
            only; passkey entry is refused) and says so on stderr; the long-term key the kernel hands
            out is kept in smp-keys next to the keystore and loaded back on later runs.
            """,
        options: ReaderOptions.linkSpecs + [ReaderOptions.jsonSpec])

    var options: ReaderOptions

    init(arguments: ParsedArguments) throws(UsageError) {
        options = try ReaderOptions(arguments)
    }

    mutating func run() throws -> ExitCode {
        let printer = EventPrinter(json: options.json, showReadings: false)
        let signals = try installStopSignals()
        defer { signals.restore() }
        let service = BandReaderService(address: options.address, keystore: options.keystore, storePath: "",
                                        stop: StopRequest(signals: signals), openLink: options.linkOpener(pairing: true).open, report: printer.handle)
        let band: PairedBand?
        do { band = try service.pair() } catch { throw failure(error) }
        guard let band else {
            printer.handle(.stopped)
            return .failure
        }
        if options.json {
            writeLine(JSONValue.object([("event", "paired_band"), ("address", .string(band.address)),
                                    ("keystore", .string(options.keystore.path))]).text)
        } else {
            writeLine("paired \(band.address); key stored in \(options.keystore.path)")
        }
        return .success
    }
}
