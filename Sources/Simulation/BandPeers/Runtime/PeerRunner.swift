import BandATT
import BandGATTServer
import BandLink
import BandWire
import SocketSecurity

/// Serves one ``PeerDevice`` to readers, one connection at a time, as `bandsim serve --profile`
/// runs it: one `poll()` on the listener, the connection and a stop signal, with the device's
/// next reading (a whole simulated second) as the deadline. True time runs `speed` times faster
/// than the host's clock; the device is advanced whether or not a reader is connected (a watch
/// counts steps in a drawer too). No sleeps.
public final class PeerRunner<Device: PeerDevice> {
    public struct Options {
        public var speed: Double = 1
        public var exitAfterConnections: Int?
        public var exitAfterDuration: Duration?
        public var log: (String) -> Void = { _ in }
        /// The host instant simulated time starts at (default: when ``run(stop:stopDescriptor:)``
        /// starts), so a test's clocks can share the runner's exactly.
        public var realStart: ContinuousClock.Instant?
        /// Link security on the socket link (`SocketSecurityPDU` envelopes before ATT): the
        /// device's SMP responder. Nil: such envelopes get ATT's Request Not Supported.
        public var security: SocketPairingResponder?
        public init() {}
    }

    /// Why the loop ended (shared with the other serve loop, in BandLink).
    public typealias Ending = RunEnding

    public let device: Device
    private let listener: any PeerListener
    private let options: Options
    private var bearer: (any ATTBearer)?
    private var server = GATTServer(serverMTU: 247)
    private var security: SocketPairingResponder?
    private var connectionsEnded = 0
    /// Notifications sent, per connection (for the log line at its end).
    private var sent = 0
    private let input = UnsafeMutableRawBufferPointer.allocate(byteCount: ATT.maximumMTU, alignment: 8)
    private let output = UnsafeMutableRawBufferPointer.allocate(byteCount: ATT.maximumMTU, alignment: 8)

    public init(device: Device, listener: any PeerListener, options: Options) {
        precondition(options.speed > 0, "speed must be positive")
        self.device = device
        self.listener = listener
        self.options = options
        security = options.security
    }

    /// The bonds the device made on socket links (kept across connections, as in flash).
    public var bonds: [SocketBond] { security?.bonds ?? [] }

    deinit {
        input.deallocate()
        output.deallocate()
    }

    /// Runs until a signal, `stopDescriptor` turns readable, or an exit condition.
    public func run(stop: StopSignals?, stopDescriptor: Int32? = nil) throws(LinkError) -> Ending {
        let clock = ContinuousClock()
        let realStart = options.realStart ?? clock.now
        let simulationStart = device.trueTime
        var poller = Poller()
        if let stop { poller.watch(stop.pollDescriptor) }
        if let stopDescriptor { poller.watch(stopDescriptor) }
        var watched: Int32?
        defer { if let bearer { end(bearer, why: "the simulator stopped") } }

        func trueTime(at instant: ContinuousClock.Instant) -> PeerMilliseconds {
            let (seconds, attoseconds) = (instant - realStart).components
            let elapsed = (Double(seconds) + Double(attoseconds) * 1e-18) * options.speed
            return simulationStart + PeerMilliseconds(elapsed * 1000)
        }
        func realInstant(of target: PeerMilliseconds) -> ContinuousClock.Instant {
            let seconds = Double(target - simulationStart) / 1000 / options.speed
            return realStart + .microseconds(Int64((seconds * 1_000_000).rounded(.up)))
        }
        let limit = options.exitAfterDuration.map { simulationStart + PeerMilliseconds($0.components.seconds * 1000) }

        while true {
            if let stop, let number = stop.received().first { return .signal(number) }
            if let limit, device.trueTime >= limit, let duration = options.exitAfterDuration { return .duration(duration) }

            let descriptor = bearer?.pollDescriptor
            if descriptor != watched {
                if let old = watched { poller.unwatch(old) }
                watched = descriptor
            }
            if let descriptor { poller.watch(descriptor) }
            poller.watch(listener.pollDescriptor, for: bearer == nil ? .readable : [])
            try poller.wait(until: realInstant(of: device.nextDeadline))
            if let stopDescriptor, poller.isReady(stopDescriptor) { return .stopped }

            if bearer == nil, poller.isReady(listener.pollDescriptor), let link = try listener.acceptLink() {
                bearer = link
                server = GATTServer(serverMTU: 247)
                sent = 0
                device.connected()
                options.log("reader connected")
            }
            if let link = bearer, let descriptor, poller.isReady(descriptor) {
                device.willAnswer(at: max(device.trueTime, min(trueTime(at: clock.now), device.nextDeadline - 1)))
                answerWaiting(on: link)
            }
            var target = trueTime(at: clock.now)
            if let limit { target = min(target, limit) }
            let pushes = device.advance(to: target)
            if let link = bearer {
                for push in pushes where device.table.notifies(push.characteristic) {
                    guard let handle = device.table.valueHandle(of: push.characteristic) else { continue }
                    do { try notify(push.value, handle: handle, on: link) } catch {
                        end(link, why: "\(error)")
                        break
                    }
                }
            }
            if device.wantsDisconnect {
                // A reboot drops the link; with no reader connected it only resets the device.
                device.wantsDisconnect = false
                if let link = bearer { end(link, why: "the device rebooted") }
            }
            if bearer == nil, let count = options.exitAfterConnections, connectionsEnded >= count { return .connections(connectionsEnded) }
        }
    }

    /// Answers every PDU waiting on the link (zero-timeout receives).
    private func answerWaiting(on link: any ATTBearer) {
        do {
            while let length = try link.receive(into: input, timeout: .zero) {
                if input[0] == SocketSecurityPDU.envelopeOpcode, security != nil {
                    try answerSecurity(Array(input[0..<length]), on: link)
                    continue
                }
                var table = device.table
                let result = server.handle(UnsafeRawBufferPointer(rebasing: input[0..<length]), source: &table, into: output)
                device.table = table
                if result.responseLength > 0 {
                    try link.send(UnsafeRawBufferPointer(rebasing: output[0..<result.responseLength]))
                }
                switch result.event {
                case .exchangedMTU(let mtu): link.mtu = mtu
                case .wrote(_, let effect): device.wrote(effect)
                default: break
                }
            }
        } catch {
            end(link, why: error == .closed ? "the reader hung up" : "\(error)")
        }
    }

    /// One link-security message from the reader: the responder's answer and what to log.
    private func answerSecurity(_ envelope: [UInt8], on link: any ATTBearer) throws(LinkError) {
        guard var responder = security else { return }
        let actions: [SocketPairingResponder.Action]
        do throws(ParseError) {
            actions = responder.received(try SocketSecurityPDU(envelope: envelope), at: ContinuousClock.now)
        } catch {
            responder.connectionEnded()
            actions = [.send(.pairingFailed(.unspecifiedReason)), .failed("a broken security message: \(error)")]
        }
        security = responder
        for action in actions {
            switch action {
            case .send(let pdu): try link.send(pdu.envelope)
            case .display(let passkey): options.log("pairing: the screen shows passkey \(SocketPairingResponder.digits(passkey))")
            case .bonded: options.log("pairing: bonded (\(responder.bonds.count) bond(s) kept)")
            case .encrypted: options.log("link encrypted with a stored bond")
            case .failed(let why): options.log("link security failed: \(why)")
            }
        }
    }

    private func notify(_ value: [UInt8], handle: UInt16, on link: any ATTBearer) throws(LinkError) {
        var writer = ByteWriter(output)
        writer.writeUInt8(ATTOpcode.handleValueNotification.rawValue)
        writer.writeUInt16LE(handle)
        value.withUnsafeBytes { writer.writeBytes(UnsafeRawBufferPointer(rebasing: $0[0..<min($0.count, link.mtu - 3)])) }
        try link.send(writer.written)
        sent += 1
    }

    private func end(_ link: any ATTBearer, why: String) {
        link.close()
        bearer = nil
        connectionsEnded += 1
        device.disconnected()
        security?.connectionEnded()
        listener.connectionEnded()
        options.log("connection ended (\(why)); \(sent) notifications sent")
    }
}
