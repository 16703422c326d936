#if canImport(Glibc)
import Glibc
#endif
import BandLink
import BandTrace
import BandWire
import ServiceSupport

/// The band's one event loop, as `bandsim serve` runs it: `poll()` on the listener, the
/// connection, a stop signal and (under `--confirm ask`) the terminal, with the next sensor
/// tick as the deadline. True time runs `speed` times faster than the host's clock.
public final class BandRunner {
    public struct Options {
        /// Simulated seconds per real second.
        public var speed: Double = 1
        /// Stop after this many connections have ended.
        public var exitAfterConnections: Int?
        /// Stop after this much simulated time.
        public var exitAfterDuration: Duration?
        /// Persist the flash here (`--state`).
        public var statePath: String?
        /// Record every connection into this trace (`--record`).
        public var recorder: ATTTraceRecorder?
        /// Read the wearer's pairing answers from this descriptor (`--confirm ask`).
        public var promptInput: Int32?
        /// Writes a pairing question to the wearer.
        public var prompt: (String) -> Void = { _ in }
        /// Further pieces the loop drives (`--hci-controller`: the controller link under the
        /// listener), polled with the band's own descriptors.
        public var drivers: [any PollDriven] = []

        public init() {}
    }

    /// Why the loop ended (shared with the other serve loop, in BandLink).
    public typealias Ending = RunEnding

    public let band: SimulatedBand
    private let listener: any BandListener
    private let options: Options
    private var flashDirty = false
    private var lastSave = ContinuousClock.now
    private var connectionsEnded = 0

    public init(band: SimulatedBand, listener: any BandListener, options: Options) {
        precondition(options.speed > 0, "speed must be positive")
        self.band = band
        self.listener = listener
        self.options = options
        let previousRecorded = band.onMinuteRecorded
        band.onMinuteRecorded = { [unowned self] sequence, record in
            previousRecorded?(sequence, record)
            flashDirty = true
        }
        let previousChanged = band.onFlashChanged
        band.onFlashChanged = { [unowned self] in
            previousChanged?()
            flashDirty = true
            // Keys and acknowledgements must not be lost to a crash: save them at once.
            try? saveState()
        }
    }

    /// Runs until a signal, `stopDescriptor` turns readable, `exitAfterConnections` or `exitAfterDuration`.
    public func run(stop: StopSignals?, stopDescriptor: Int32? = nil) throws -> Ending {
        let clock = ContinuousClock()
        let realStart = clock.now
        let simulationStart = band.trueTime
        var poller = Poller()
        var watchedConnection: Int32?
        var answerBuffer = [UInt8](repeating: 0, count: 64)
        if let stop { poller.watch(stop.pollDescriptor) }
        if let stopDescriptor { poller.watch(stopDescriptor) }

        func trueTime(at instant: ContinuousClock.Instant) -> BandInstant {
            let (seconds, attoseconds) = (instant - realStart).components
            let elapsed = (Double(seconds) + Double(attoseconds) * 1e-18) * options.speed
            return simulationStart + .milliseconds(Int64(elapsed * 1000))
        }
        func realInstant(of target: BandInstant) -> ContinuousClock.Instant {
            let seconds = Double((target - simulationStart).wholeMilliseconds) / 1000 / options.speed
            return realStart + .milliseconds(Int64((seconds * 1000).rounded(.up)))
        }

        defer { try? saveState() }
        while true {
            if let stop, let number = stop.received().first { return .signal(number) }
            if let limit = options.exitAfterDuration, band.trueTime - simulationStart >= limit { return .duration(limit) }

            // What to wait for. The set changes only when the connection does, so a turn of the
            // loop allocates nothing.
            let connectionDescriptor = band.isConnected ? band.connectionDescriptor : nil
            if connectionDescriptor != watchedConnection {
                if let old = watchedConnection { poller.unwatch(old) }
                watchedConnection = connectionDescriptor
            }
            if let fd = connectionDescriptor {
                poller.watch(fd, for: band.hasPendingWork ? [.readable, .writable] : .readable)
                poller.watch(listener.pollDescriptor, for: [])
            } else {
                poller.watch(listener.pollDescriptor, for: .readable)
            }
            if let input = options.promptInput { poller.watch(input, for: band.pairingPromptPending ? .readable : []) }
            var deadline = realInstant(of: band.nextDeadline)
            if flashDirty { deadline = min(deadline, lastSave + .seconds(1)) }
            watchDrivers(in: &poller)
            for driver in options.drivers { if let due = driver.nextDeadline { deadline = min(deadline, due) } }
            try poller.wait(until: deadline)
            if let stopDescriptor, poller.isReady(stopDescriptor) { return .stopped }
            for driver in options.drivers { driver.handle(ready: poller.isReady, now: clock.now, budget: .milliseconds(20)) }

            // Accept a reader when the band is free (a connected band does not advertise).
            if !band.isConnected, poller.isReady(listener.pollDescriptor), let link = try listener.acceptLink() {
                band.connect(wrapForRecording(link))
            }
            if let input = options.promptInput, poller.isReady(input) {
                let count = answerBuffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
                band.answerPairing(count > 0 && (answerBuffer[0] == UInt8(ascii: "y") || answerBuffer[0] == UInt8(ascii: "Y")))
            }
            let wasConnected = band.isConnected
            if wasConnected { band.pump() }
            var target = trueTime(at: clock.now)
            // Never run past the end a run was asked for: the same seed must give the same records.
            if let limit = options.exitAfterDuration { target = min(target, simulationStart + limit) }
            band.advance(to: target)
            if band.isConnected { band.pump() }
            if wasConnected, !band.isConnected {
                connectionsEnded += 1
                listener.connectionEnded()
                if let limit = options.exitAfterConnections, connectionsEnded >= limit { return .connections(connectionsEnded) }
            }
            if band.pairingPromptPending, !promptShown {
                promptShown = true
                options.prompt("Pair with this reader? [y/N] ")
            } else if !band.pairingPromptPending {
                promptShown = false
            }
            if flashDirty, clock.now - lastSave >= .seconds(1) { try saveState() }
        }
    }

    private var promptShown = false
    /// The drivers' descriptors of the last turn, so one a driver no longer wants is unwatched.
    private var driverDescriptors: [Int32] = []

    private func watchDrivers(in poller: inout Poller) {
        guard !options.drivers.isEmpty else { return }
        var wanted: [pollfd] = []
        for driver in options.drivers { driver.appendPollDescriptors(to: &wanted) }
        for fd in driverDescriptors where !wanted.contains(where: { $0.fd == fd }) { poller.unwatch(fd) }
        for entry in wanted { poller.watch(entry.fd, for: PollEvents(rawValue: entry.events)) }
        driverDescriptors = wanted.map(\.fd)
    }

    private func wrapForRecording(_ link: any ATTBearer) -> any ATTBearer {
        guard let recorder = options.recorder else { return link }
        let band = self.band
        // As the reader's host would have captured it, in the simulation's true time (a
        // `--speed 60` trace shows band time); a full disk stops the trace, never the band.
        do throws(LinkError) {
            return try RecordingBearer(recording: link, into: recorder, vantage: .centralOfThisPeripheral,
                                       peer: LEAddress(BluetoothAddress(0xC0_B5_C0_00_00_01), type: .random),
                                       clock: { band.trueTime.milliseconds * 1000 },
                                       policy: .report { band.log($0) }, localCloseReason: 0x13)
        } catch {
            return link  // `.report` never throws
        }
    }

    /// Writes the flash to `--state` (if any) now.
    public func saveState() throws {
        lastSave = ContinuousClock.now
        guard let path = options.statePath, flashDirty else { return }
        flashDirty = false
        try StateFile.save(band.flash, to: path)
    }
}
