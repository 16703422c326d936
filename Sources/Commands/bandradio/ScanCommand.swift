import BandBlueZ
import BandWire
import CommandKit

/// `bandradio scan`: an active LE scan on a raw HCI socket; one line per device.
struct ScanCommand: Command {
    static let configuration = CommandConfiguration(
        name: "scan", abstract: "Scan for LE advertisers and print them (address, RSSI, name, services).",
        discussion: "With --name or --service, stops at the first match and exits 1 if none was seen.",
        options: [
            RadioOptions.hci,
            .option("for", value: "DURATION", help: "How long to scan (default 5s)."),
            .option("name", value: "NAME", help: "Stop at a device with this complete or shortened name."),
            .option("service", value: "UUID", help: "Stop at a device advertising this service."),
        ])

    let adapterName: String
    let duration: Duration
    let name: String?
    let service: BluetoothUUID?

    init(arguments: ParsedArguments) throws(UsageError) {
        adapterName = try RadioOptions.adapter(arguments)
        duration = try RadioOptions.duration(arguments, "for", default: .seconds(5))
        name = arguments.value("name")
        service = try RadioOptions.uuids(arguments, "service").first
    }

    func run() throws -> ExitCode {
        let scanner = try LEScanner(adapter: adapterName)
        let filtering = name != nil || service != nil
        let matches: (DiscoveredDevice) -> Bool = { device in
            (name == nil || device.name == name) && (service == nil || device.advertises(service!))
        }
        let devices = try Discovery.scan(scanner, for: duration, until: filtering ? matches : nil)
        for device in devices {
            let services = device.serviceUUIDs.map(\.description).joined(separator: ",")
            say("device \(device.address) rssi \(device.rssi.map(String.init) ?? "?") name '\(device.name ?? "")' services [\(services)] connectable \(device.isConnectable) reports \(device.reportCount)")
        }
        say("scan: \(devices.count) device(s) via \(scanner.usesExtendedCommands ? "extended" : "legacy") scan commands")
        if filtering && !devices.contains(where: matches) {
            say("scan: no matching device")
            return .failure
        }
        return .success
    }
}
