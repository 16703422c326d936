import BandBlueZ
import BandGATT
import BandProtocol
import BandReader
import CommandKit
import JSONOutput

struct ScanCommand: Command {
    static let configuration = CommandConfiguration(
        name: "scan",
        abstract: "Scan for LE devices; says which kind each looks like (BandKit band, InfiniTime, HR strap, RSC footpod).",
        discussion: """
            Needs a Bluetooth adapter (and the rights to open a raw HCI socket).

            The kind is a guess from advertising (advertised services, and the name InfiniTime for a
            PineTime, which advertises none of its own services): bandkit, infinitime, hr-strap,
            rsc-footpod or other. band stream tells it for certain from GATT discovery once connected.
            """,
        options: [.option("timeout", value: "S", help: "How long to scan, e.g. 10 or 10s (default 10 s)."),
                  .option("hci", value: "hciN", help: "Bluetooth adapter (default hci0)."),
                  ReaderOptions.jsonSpec])

    var timeout: Duration
    var adapter: String
    var json: Bool

    init(arguments: ParsedArguments) throws(UsageError) {
        timeout = try arguments.value("timeout", as: "a duration such as 10 or 10s", parseDuration) ?? .seconds(10)
        adapter = arguments.value("hci") ?? "hci0"
        json = arguments.flag("json")
    }

    mutating func run() throws -> ExitCode {
        let scanner: LEScanner
        let devices: [DiscoveredDevice]
        do {
            scanner = try LEScanner(adapter: adapter)
            devices = try Discovery.scan(scanner, for: timeout)
        } catch {
            throw RuntimeFailure("band scan: \(adapter): \(error)")
        }
        for device in devices {
            let kind = BandKind(advertisedServices: device.serviceUUIDs, name: device.name)
            if json {
                writeJSONLine { json in
                    json.beginObject()
                    json.key("address"); json.value(device.address.address.description)
                    json.key("address_type"); json.value(device.address.type.isRandom ? "random" : "public")
                    json.key("name"); json.value(device.name)
                    json.key("rssi"); json.value(device.rssi.map { Int($0) })
                    json.key("kind"); json.value(kind.rawValue)
                    json.key("services")
                    json.beginArray()
                    for service in device.serviceUUIDs { json.value(service.description) }
                    json.endArray()
                    json.key("connectable"); json.value(device.isConnectable)
                    json.endObject()
                }
            } else {
                let random = device.address.type.isRandom ? " --random" : ""
                writeLine("\(device.address.address)\(random)  \(device.rssi.map { "\($0) dBm" } ?? "? dBm")  \(kind.rawValue)  \(device.name?.terminalEscaped ?? "(no name)")")
            }
        }
        if devices.isEmpty, !json { CommandRunner.printError("band scan: no devices seen in \(timeout)") }
        return .success
    }
}
