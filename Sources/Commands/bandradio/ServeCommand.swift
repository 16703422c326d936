import BandBlueZ
import BandLink
import BandWire
import CommandKit

/// `bandradio serve`: the peripheral side. Advertises, accepts ATT connections on CID 4,
/// answers Exchange MTU, and serves one attribute that needs an encrypted link (so the
/// central has to raise security, as with a band's protected characteristics). Confirms
/// Just Works pairing on its adapter and keeps the keys. One `poll()` loop: listener,
/// link, management socket, SIGINT/SIGTERM, deadline.
struct ServeCommand: Command {
    static let configuration = CommandConfiguration(
        name: "serve", abstract: "Advertise and serve a protected attribute over ATT on L2CAP CID 4.",
        options: [
            RadioOptions.hci, RadioOptions.keys,
            .option("name", value: "NAME", help: "Complete local name to advertise (default BandKit-Probe)."),
            .option("service", value: "UUID", repeats: true, help: "Service UUID to advertise (repeatable; default 180d)."),
            .option("for", value: "DURATION", help: "Stop after this long (default 60s)."),
            .option("sessions", value: "N", help: "Stop after N connections have ended."),
        ])

    let adapterName: String
    let keyFile: String?
    let name: String
    let services: [BluetoothUUID]
    let duration: Duration
    let sessions: Int?

    init(arguments: ParsedArguments) throws(UsageError) {
        adapterName = try RadioOptions.adapter(arguments)
        keyFile = arguments.value("keys")
        name = arguments.value("name") ?? "BandKit-Probe"
        let given = try RadioOptions.uuids(arguments, "service")
        services = given.isEmpty ? [BluetoothUUID(0x180D)] : given
        duration = try RadioOptions.duration(arguments, "for", default: .seconds(60))
        sessions = try arguments.value("sessions", as: "a count") { Int($0) }
    }

    func run() throws -> ExitCode {
        let stop = try StopSignals()
        let radio = try BlueZPeripheral(adapter: adapterName, name: name, services: services, keyFile: keyFile,
                                        log: { say("agent: \($0)") })
        let agent = radio.agent
        let listener = radio.listener
        say("serve: \(radio.adapter.name) \(radio.address) advertising '\(name)' [\(services.map(\.description).joined(separator: ","))]")

        let deadline = ContinuousClock.now.advanced(by: duration)
        var link: L2CAPATTLink?
        var ended = 0
        var poller = Poller()
        poller.watch(listener.pollDescriptor)
        poller.watch(agent.pollDescriptor)
        poller.watch(stop.pollDescriptor)
        while ContinuousClock.now < deadline {
            try agent.handlePendingEvents()
            guard try poller.wait(until: deadline) > 0 else { break }
            if poller.isReady(stop.pollDescriptor) {
                say("serve: stopping on signal \(stop.received())")
                break
            }
            if poller.isReady(listener.pollDescriptor), let accepted = try radio.accept(timeout: .zero) {
                if let old = link { poller.unwatch(old.pollDescriptor ?? -1); old.close() }
                say("serve: accepted \(accepted.peer)")
                link = accepted
                poller.watch(accepted.pollDescriptor!)
            }
            guard let current = link, let fd = current.pollDescriptor, poller.isReady(fd) else { continue }
            if try !serveWaitingRequests(on: current) {
                say("serve: link to \(current.peer) closed\(current.closeReason.map { " (\($0))" } ?? "")")
                poller.unwatch(fd)
                current.close()
                link = nil
                ended += 1
                try radio.resumeAdvertising()
                if let sessions, ended >= sessions { break }
            }
        }
        radio.close()
        say("serve: done after \(ended) session(s)")
        return .success
    }

    /// Answers every request waiting on `link`; false once the link has closed.
    private func serveWaitingRequests(on link: L2CAPATTLink) throws -> Bool {
        do {
            while let pdu = try link.receive(timeout: .zero) { try answer(pdu, on: link) }
            return true
        } catch LinkError.closed {
            return false
        }
    }

    private func answer(_ pdu: [UInt8], on link: L2CAPATTLink) throws(LinkError) {
        guard let opcode = pdu.first else { return }
        switch opcode {
        case ProbeATT.exchangeMTURequest where pdu.count == 3:
            let clientMTU = UInt16(pdu[1]) | UInt16(pdu[2]) << 8
            try link.send([ProbeATT.exchangeMTUResponse] + ProbeATT.little(ProbeATT.serverMTU))
            link.mtu = Int(min(max(clientMTU, 23), ProbeATT.serverMTU))
            say("serve: MTU exchange, client \(clientMTU), ATT_MTU now \(link.mtu)")
        case ProbeATT.readRequest where pdu.count == 3:
            let handle = UInt16(pdu[1]) | UInt16(pdu[2]) << 8
            let level = try link.securityLevel()
            if handle != ProbeATT.protectedHandle {
                try link.send(ProbeATT.error(for: opcode, handle: handle, code: 0x0A))  // Attribute Not Found
            } else if level < .medium {
                say("serve: read of 0x0003 at security \(level): Insufficient Authentication")
                try link.send(ProbeATT.error(for: opcode, handle: handle, code: ProbeATT.insufficientAuthentication))
            } else {
                say("serve: read of 0x0003 at security \(level): allowed")
                try link.send([ProbeATT.readResponse] + Array("bandkit:\(level)".utf8))
            }
        case let command where command & 0x40 != 0:
            break  // ATT commands get no response (§3.3)
        default:
            try link.send(ProbeATT.error(for: opcode, handle: 0, code: ProbeATT.requestNotSupported))
        }
    }
}
