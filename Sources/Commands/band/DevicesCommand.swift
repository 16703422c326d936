import BandReader
import CommandKit
import JSONOutput
import FoundationEssentials

struct DevicesCommand: Command {
    static let configuration = CommandConfiguration(
        name: "devices",
        abstract: "List the paired devices in the keystore, with the kind discovery showed each to be and the person each belongs to.",
        discussion: "A band paired with --person NAME shows 'for NAME' (JSON \"person\", null for the store's default person).",
        options: [.option("keystore", value: "PATH", help: "Keystore file (default $XDG_CONFIG_HOME/bandkit/keys.json)."),
                  ReaderOptions.jsonSpec])

    var keystore: Keystore
    var json: Bool

    init(arguments: ParsedArguments) throws(UsageError) {
        keystore = Keystore(path: arguments.value("keystore") ?? Keystore.defaultPath())
        json = arguments.flag("json")
    }

    mutating func run() throws -> ExitCode {
        let bands: [PairedBand]
        do { bands = try keystore.load() } catch { throw RuntimeFailure("band devices: \(error)") }
        for band in bands {
            if json {
                writeJSONLine { json in
                    json.beginObject()
                    json.key("address"); json.value(band.address)
                    json.key("name"); json.value(band.device.name)
                    json.key("manufacturer"); json.value(band.device.manufacturer)
                    json.key("model"); json.value(band.device.model)
                    json.key("serial"); json.value(band.device.serialNumber)
                    json.key("kind"); json.value(band.kind.rawValue)
                    json.key("firmware"); json.value(band.device.firmwareRevision)
                    json.key("paired_at"); json.value(utcTimestamp(band.pairedAt))
                    json.key("person"); json.value(band.person)
                    json.endObject()
                }
            } else {
                let what = [band.device.name, band.device.model, band.device.serialNumber.map { "serial \($0)" }].compactMap { $0 }
                // The person only when one was named at pairing: a default person's line is as before.
                let whose = band.person.map { "  for \($0.terminalEscaped)" } ?? ""
                writeLine("\(band.address.terminalEscaped)  \(band.kind.rawValue)  \(what.joined(separator: ", ").terminalEscaped)  paired \(utcTimestamp(band.pairedAt))\(whose)")
            }
        }
        if bands.isEmpty, !json { CommandRunner.printError("no paired bands in \(keystore.path.terminalEscaped)") }
        return .success
    }
}
