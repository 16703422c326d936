import BandLink
import BandReader
import CommandKit
import JSONOutput
import HealthStore

struct PairCommand: Command {
    static let configuration = CommandConfiguration(
        name: "pair",
        abstract: "Pair with a band: link security, then the band's key exchange; the key goes to the keystore.",
        discussion: """
            The wearer confirms the pairing on the band. A plain heart-rate strap needs no pairing.

            On Bluetooth, pairing first raises link security (BT_SECURITY medium), so the kernel runs
            SMP. When no bluetoothd agent is running, nobody else would answer the kernel's
            confirmation request, so band answers it itself on the management socket and says so on
            stderr; the long-term key the kernel hands out is kept in smp-keys next to the keystore
            and loaded back on later runs.

            A device that shows a passkey on its screen (a PineTime running InfiniTime) makes the
            kernel ask for it: band asks on the terminal, or takes --passkey N in scripts. With
            stdin not a terminal and no --passkey, such a device ends the run with exit 64. A
            wrong passkey ends it with exit 1 and nothing stored. The simulator's socket link has
            no SMP: --passkey there is only checked for form.

            --person NAME binds the band to a person of the store (add one with 'health people add NAME'):
            'band sync' and 'band stream' then write its readings as that person. Without it, the band
            belongs to the store's default person. An unknown or invalid name ends the run with exit 64
            before the band is touched.
            """,
        options: ReaderOptions.linkSpecs + [ReaderOptions.jsonSpec,
                                            .option("passkey", value: "N", help: "The six digits the device shows, for scripts (default: ask on the terminal)."),
                                            .option("person", value: "NAME", help: "Whose band this is (default: the store's default person)."),
                                            ReaderOptions.storeSpec])

    var options: ReaderOptions
    var passkey: PasskeyEntry
    var person: String?

    init(arguments: ParsedArguments) throws(UsageError) {
        options = try ReaderOptions(arguments)
        passkey = try PasskeyEntry(option: arguments.value("passkey"))
        person = arguments.value("person")
        if let person, let problem = Person.problem(withName: person) {
            throw arguments.usageError("--person '\(person.terminalEscaped)' \(problem)")
        }
    }

    /// The person `--person` names, checked in the store before the band is touched; nil (the
    /// default person) needs no store.
    private func checkPerson() throws -> Person? {
        guard let person else { return nil }
        do {
            return try HealthStore(path: options.storePath, cacheKiB: 64, readOnly: true, person: person).person
        } catch HealthStoreError.unknownPerson {
            throw UsageError("band pair: --person '\(person.terminalEscaped)': no such person in \(options.storeName.terminalEscaped) (add one with 'health people add NAME')")
        } catch {
            throw RuntimeFailure("band pair: cannot check --person in \(options.storeName.terminalEscaped): \("\(error)".terminalEscaped)")
        }
    }

    mutating func run() throws -> ExitCode {
        let printer = EventPrinter(json: options.json, showReadings: false)
        let signals = try installStopSignals()
        defer { signals.restore() }
        let smpFailure = PairingFailureBox()
        let opener = options.linkOpener(pairing: true, passkey: passkey, pairingFailure: smpFailure)
        _ = try checkPerson()
        let service = BandReaderService(address: options.address, keystore: options.keystore, storePath: "",
                                        stop: StopRequest(signals: signals), openLink: opener.open, report: printer.handle)
        service.person = person
        let personShown = person ?? "the default person"
        let band: PairedBand?
        do { band = try service.pair() } catch {
            throw passkey.commandFailure(after: smpFailure.failure) ?? failure(error)
        }
        guard let band else {
            printer.handle(.stopped)
            return .failure
        }
        if options.json {
            writeJSONLine { json in
                json.beginObject()
                json.key("event"); json.value(verbatim: "paired_band")
                json.key("address"); json.value(band.address)
                json.key("keystore"); json.value(options.keystore.path)
                json.key("person"); json.value(person)
                if band.isBondOnly {
                    json.key("kind"); json.value(band.kind.rawValue)
                    json.key("bond_only"); json.value(true)
                }
                json.endObject()
            }
        } else if band.isBondOnly {
            writeLine("paired \(band.address) (\(band.kind)) for \(personShown.terminalEscaped): bond only, no BandKit key; entry stored in \(options.keystore.path)")
        } else {
            writeLine("paired \(band.address) for \(personShown.terminalEscaped); key stored in \(options.keystore.path)")
        }
        return .success
    }
}
