import BandBlueZ
import BandLink
import BandWire
import CommandKit

/// `bandradio connect`: the central side. Connects on CID 4, exchanges MTU, reads the
/// protected attribute; on Insufficient Authentication raises security (pairing through
/// the agent, or encryption with a stored key) and reads again, as a GATT client must.
struct ConnectCommand: Command {
    static let configuration = CommandConfiguration(
        name: "connect", abstract: "Connect over ATT on L2CAP CID 4, exchange MTU, read the protected attribute.",
        discussion: """
            Prints 'pairing: confirmed' when the kernel asked to confirm a new pairing, 'pairing: none' when a \
            stored key encrypted the link. With --hold, keeps the link open afterwards until it drops \
            (exit 0 only with --expect-drop) or the time is up.
            """,
        options: [
            RadioOptions.hci, RadioOptions.keys,
            .option("to", value: "ADDRESS", help: "Peer address, AA:BB:CC:DD:EE:FF[/random]."),
            .option("security", value: "LEVEL", help: "Security to request at connect: low (default), medium, high."),
            .option("timeout", value: "DURATION", help: "Connection (and pairing) timeout (default 30s)."),
            .option("hold", value: "DURATION", help: "Keep the link open this long afterwards."),
            .flag("expect-drop", help: "With --hold: succeed only if the link drops."),
            .option("expect-pairing", value: "yes|no", help: "Fail unless a new pairing did (yes) or did not (no) happen."),
        ])

    let adapterName: String
    let keyFile: String?
    let peer: LEAddress
    let security: SecurityLevel
    let timeout: Duration
    let hold: Duration?
    let expectDrop: Bool
    let expectPairing: Bool?

    init(arguments: ParsedArguments) throws(UsageError) {
        adapterName = try RadioOptions.adapter(arguments)
        keyFile = arguments.value("keys")
        guard let peer = try RadioOptions.peer(arguments, "to") else { throw arguments.usageError("--to ADDRESS is required") }
        self.peer = peer
        security = try RadioOptions.security(arguments)
        timeout = try RadioOptions.duration(arguments, "timeout", default: .seconds(30))
        hold = arguments.value("hold") == nil ? nil : try RadioOptions.duration(arguments, "hold", default: .zero)
        expectDrop = arguments.flag("expect-drop")
        switch arguments.value("expect-pairing") {
        case nil: expectPairing = nil
        case "yes": expectPairing = true
        case "no": expectPairing = false
        case let other?: throw arguments.usageError("--expect-pairing '\(other)' must be yes or no")
        }
    }

    func run() throws -> ExitCode {
        let started = ContinuousClock.now
        let link = try BlueZCentral.connect(to: peer, adapter: adapterName, security: security, keyFile: keyFile,
                                            timeout: timeout, log: { say("agent: \($0)") })
        guard let agent = link.agent else { throw RuntimeFailure("connect: the link has no pairing agent") }
        say("connect: \(adapterName) → \(peer) in \(ContinuousClock.now - started), security \(try link.securityLevel()), channel MTU \(try link.channelMTU())")

        try link.send([ProbeATT.exchangeMTURequest] + ProbeATT.little(ProbeATT.serverMTU))
        let mtuReply = try expectReply(link, "Exchange MTU")
        guard mtuReply.count == 3, mtuReply[0] == ProbeATT.exchangeMTUResponse else { throw RuntimeFailure("connect: bad MTU reply \(Hex.encode(mtuReply))") }
        link.mtu = Int(min(UInt16(mtuReply[1]) | UInt16(mtuReply[2]) << 8, ProbeATT.serverMTU))
        say("connect: ATT_MTU \(link.mtu)")

        var value = try read(link)
        if value == ProbeATT.error(for: ProbeATT.readRequest, handle: ProbeATT.protectedHandle, code: ProbeATT.insufficientAuthentication) {
            say("connect: Insufficient Authentication; raising security to medium")
            try link.raiseSecurity(to: .medium, timeout: timeout)
            value = try read(link)
        }
        guard value.first == ProbeATT.readResponse else { throw RuntimeFailure("connect: read failed: \(Hex.encode(value))") }
        say("connect: read '\(String(decoding: value.dropFirst(), as: UTF8.self))' at security \(try link.securityLevel())")
        try agent.handlePendingEvents()  // the New Long Term Key event follows pairing
        let confirmations = agent.confirmedPairings
        say("pairing: \(confirmations > 0 ? "confirmed" : "none")")
        if let expectPairing, expectPairing != (confirmations > 0) {
            throw RuntimeFailure("connect: expected \(expectPairing ? "a new pairing" : "no new pairing (stored key)")")
        }

        if let hold {
            let deadline = ContinuousClock.now.advanced(by: hold)
            var poller = Poller()
            poller.watch(link.pollDescriptor!)
            poller.watch(agent.pollDescriptor)
            while ContinuousClock.now < deadline {
                try poller.wait(until: deadline)
                try agent.handlePendingEvents()
                if try hasDropped(link) {
                    say("connect: link lost after \(ContinuousClock.now - started)\(link.closeReason.map { " (\($0))" } ?? "")")
                    return expectDrop ? .success : .failure
                }
            }
            say("connect: link still up after \(hold)")
            if expectDrop { return .failure }
        }
        link.close()
        return .success
    }

    /// Drains what the peer sent; true once the link is gone.
    private func hasDropped(_ link: L2CAPATTLink) throws -> Bool {
        do {
            while try link.receive(timeout: .zero) != nil {}
            return false
        } catch LinkError.closed {
            return true
        }
    }

    private func read(_ link: L2CAPATTLink) throws -> [UInt8] {
        try link.send([ProbeATT.readRequest] + ProbeATT.little(ProbeATT.protectedHandle))
        return try expectReply(link, "Read")
    }

    private func expectReply(_ link: L2CAPATTLink, _ what: String) throws -> [UInt8] {
        // ATT transaction timeout: 30 s (Vol 3 Part F §3.3.3).
        guard let reply = try link.receive(timeout: .seconds(30)) else { throw RuntimeFailure("connect: no \(what) response within 30 s") }
        return reply
    }
}
