import BandReader

/// The gateway's decisions, without I/O: which paired device to connect to when, how long a
/// device that failed waits before the next attempt, what a keystore change or a stop does to
/// the sessions running, and what is worth a log line. Fed events with the time they happened
/// (``GatewayEngine`` passes the monotonic clock; tests pass a fake one), it returns the actions
/// the engine performs.
///
/// Each device is in one ``Phase``: waiting for its next attempt (at start, or backing off after
/// a failure), or attempting (a session is connecting or running), or stopping (asked to end
/// because it was forgotten or the gateway stops). A device that stays away costs one timer:
/// the engine sleeps until ``nextWake`` and the machine logs one line per backoff step until
/// the delay reaches its cap, then is silent until the device is back.
///
/// A device the system connects in the background (a Bluetooth device, with a
/// ``BackgroundConnector``) is not tried on a timer at all: it is added to the connector once
/// (``Action/watch(address:)``), and a session starts when its link comes up (``linkUp(_:at:)``)
/// and its backoff allows. It is removed (``Action/unwatch(address:)``) when forgotten and when
/// the gateway stops, so the system stops connecting it.
///
/// A session that ends while its link stays up (it failed on the link, say encryption never
/// completed, and the kernel keeps the link) would leave the device unserved for good: the
/// kernel hands a channel over only when it makes a link. So after ``linkReleaseDelay`` without
/// the link going down or a new channel, the machine asks the system to drop that link
/// (``Action/release(address:)``); the kernel reconnects it and hands its channel over afresh.
/// Only such a link is ever dropped: one whose channel was handed over (the kernel finished
/// setting it up) and whose session has closed it.
public struct GatewayMachine {
    public typealias Instant = ContinuousClock.Instant

    public enum Phase: Equatable, Sendable {
        /// Next attempt at this instant.
        case waiting(until: Instant)
        /// A session is connecting (`connected` false) or running.
        case attempting(attempt: Int, connected: Bool)
        /// Its session was asked to stop; it is dropped (or restarted, if its entry changed)
        /// once the session has ended.
        case stopping
    }

    public enum Action: Equatable, Sendable {
        /// Run one connection to the device (connect, authenticate, set its clock, sync, stream)
        /// until it ends; report ``GatewayMachine/attemptEnded(_:progressed:error:at:)``.
        case start(GatewayDevice, attempt: Int)
        /// Ask the device's running session to end (live minutes committed, link closed).
        case stop(address: String)
        /// Have the system connect the device whenever it is in range; report
        /// ``GatewayMachine/linkHeldElsewhere(_:at:)`` if its link is up already without a
        /// channel for the gateway, or
        /// ``GatewayMachine/watchFailed(_:error:at:)``.
        case watch(address: String)
        /// Stop the system's connecting the device.
        case unwatch(address: String)
        /// Have the system drop the device's link, which stayed up with no session on it; the
        /// system connects it again by itself (the link was watched) and hands it over anew.
        case release(address: String)
        case log(GatewayLogLevel, address: String?, String)
        /// Every session has ended (or the grace period is over): the process may exit.
        case exit(abandoned: [String])
    }

    struct Entry {
        var device: GatewayDevice
        var phase: Phase
        var backoff: ReconnectBackoff
        var attempts = 0
        /// The backoff ceiling last logged, so a device that stays away logs each step once.
        var loggedCeiling: Duration?
        var quiet = false
        /// Set when its keystore entry changed while a session ran: start afresh once it ends.
        var replacement: GatewayDevice?
        var forgotten = false
        /// The system connects it in the background: an attempt waits for its link.
        var background = false
        /// Its link is up (reported by the system, not yet used by a session).
        var linkUp = false
        /// A link of it was handed over and has not been reported down since.
        var linkHeld = false
        /// When to drop its link if it is still up with no session on it.
        var releaseAt: Instant?

        /// Whether its next attempt may start once its timer is due.
        var isReady: Bool { !background || linkUp }
    }

    private var entries: [String: Entry] = [:]
    private var random: any RandomNumberGenerator
    private let backoffTemplate: ReconnectBackoff
    private let inBackground: (GatewayDevice) -> Bool
    /// How long a stop waits for sessions to commit and close their links.
    public let stopGrace: Duration
    /// How long a link that stays up after its session ended is left to the kernel (to drop
    /// or to hand over again) before the machine has it dropped: longer than SMP's 30 s
    /// timeout minus a session's 20 s wait for security, so a failed pairing the kernel tears
    /// down itself is never raced.
    public let linkReleaseDelay: Duration
    public private(set) var stopDeadline: Instant?
    private var exited = false

    /// `backoff` is each device's reconnect schedule (its own copy, so devices back off
    /// independently); `random` its jitter (seeded in tests); `inBackground` says which devices
    /// the system connects in the background (``BackgroundConnector/serves(_:)``).
    public init(backoff: ReconnectBackoff = ReconnectBackoff(initial: .seconds(1), maximum: .seconds(60)),
                stopGrace: Duration = .milliseconds(4500), linkReleaseDelay: Duration = .seconds(30),
                random: any RandomNumberGenerator = SystemRandomNumberGenerator(),
                inBackground: @escaping (GatewayDevice) -> Bool = { _ in false }) {
        backoffTemplate = backoff
        self.linkReleaseDelay = linkReleaseDelay
        self.inBackground = inBackground
        self.stopGrace = stopGrace
        self.random = random
    }

    /// The devices known, by address.
    public var devices: [GatewayDevice] { entries.values.map(\.device).sorted { $0.address < $1.address } }

    public func phase(of address: String) -> Phase? { entries[address]?.phase }

    public var isStopping: Bool { stopDeadline != nil }

    /// When the engine must call ``tick(at:)`` next (nil: only on events).
    public var nextWake: Instant? {
        var wake = stopDeadline
        for entry in entries.values {
            if case .waiting(let until) = entry.phase, stopDeadline == nil, entry.isReady { wake = min(wake ?? until, until) }
            if let release = entry.releaseAt, stopDeadline == nil { wake = min(wake ?? release, release) }
        }
        return wake
    }

    // MARK: Events

    /// The keystore's current devices (at start and after every change): new ones are tried at
    /// once, missing ones are forgotten, changed ones restarted.
    public mutating func devicesLoaded(_ devices: [GatewayDevice], at now: Instant) -> [Action] {
        guard !isStopping else { return [] }
        var actions: [Action] = []
        let wanted = Dictionary(devices.map { ($0.address, $0) }, uniquingKeysWith: { first, _ in first })
        for address in entries.keys.sorted() where wanted[address] == nil {
            guard var entry = entries[address], !entry.forgotten else { continue }
            entry.forgotten = true
            entry.replacement = nil
            switch entry.phase {
            case .waiting:
                actions += drop(address)
                actions.append(.log(.notice, address: address, "forgotten (no longer in the keystore)"))
                continue
            case .attempting:
                entry.phase = .stopping
                actions.append(.log(.notice, address: address, "forgotten (no longer in the keystore): ending its session"))
                actions.append(.stop(address: address))
            case .stopping: break
            }
            entries[address] = entry
        }
        for device in devices.sorted(by: { $0.address < $1.address }) {
            guard var entry = entries[device.address] else {
                actions += add(device, at: now)
                continue
            }
            if entry.forgotten {
                // Paired again while its old session was still ending.
                entry.forgotten = false
                entry.replacement = device
                entries[device.address] = entry
                continue
            }
            guard entry.device != device else { continue }
            switch entry.phase {
            case .waiting:
                entry.device = device
            case .attempting:
                entry.replacement = device
                entry.phase = .stopping
                actions.append(.log(.notice, address: device.address, "keystore entry changed: restarting its session"))
                actions.append(.stop(address: device.address))
            case .stopping:
                entry.replacement = device
            }
            entries[device.address] = entry
        }
        return actions + tick(at: now)
    }

    /// Time passed: starts the attempts that are due; ends a stop whose grace is over.
    public mutating func tick(at now: Instant) -> [Action] {
        if let stopDeadline {
            guard !exited, now >= stopDeadline else { return [] }
            exited = true
            let abandoned = entries.keys.sorted()
            return [.log(.warning, address: nil, "\(abandoned.count) session(s) did not end within \(stopGrace); exiting without them"),
                    .exit(abandoned: abandoned)]
        }
        var actions: [Action] = []
        for address in entries.keys.sorted() {
            guard var entry = entries[address], let release = entry.releaseAt, release <= now else { continue }
            entry.releaseAt = nil
            entries[address] = entry
            guard case .waiting = entry.phase, entry.linkHeld, !entry.linkUp else { continue }
            actions.append(.log(.notice, address: address,
                                "its link stayed up for \(Self.seconds(linkReleaseDelay)) with no session on it: having the kernel drop it, to connect it and hand it over again"))
            actions.append(.release(address: address))
        }
        for address in entries.keys.sorted() {
            guard var entry = entries[address], case .waiting(let until) = entry.phase, until <= now, entry.isReady else { continue }
            entry.attempts += 1
            entry.phase = .attempting(attempt: entry.attempts, connected: false)
            // The session takes the link handed over; a later one is announced anew, even
            // while this session still runs (a quick reconnection by the kernel).
            entry.linkUp = false
            entries[address] = entry
            actions.append(.start(entry.device, attempt: entry.attempts))
        }
        return actions
    }

    /// The device's link came up (its services discovered).
    public mutating func connected(_ address: String, at now: Instant) -> [Action] {
        guard var entry = entries[address], case .attempting(let attempt, false) = entry.phase else { return [] }
        entry.phase = .attempting(attempt: attempt, connected: true)
        var actions: [Action] = []
        if entry.quiet || entry.attempts > 1 {
            actions.append(.log(.notice, address: address, "connected after \(entry.attempts) attempt\(entry.attempts == 1 ? "" : "s")"))
        } else {
            actions.append(.log(.info, address: address, "connected"))
        }
        entry.attempts = 0
        entry.loggedCeiling = nil
        entry.quiet = false
        entries[address] = entry
        return actions
    }

    /// The device's session ended: `progressed` when it authenticated, streamed or committed
    /// history (the backoff starts over), `error` its failure (nil: it ended as asked).
    public mutating func attemptEnded(_ address: String, progressed: Bool, error: String?, at now: Instant) -> [Action] {
        guard var entry = entries[address] else { return [] }
        if isStopping {
            entries[address] = nil
            return entries.isEmpty && !exited ? exitNow() : []
        }
        if case .stopping = entry.phase {
            guard let replacement = entry.replacement else {
                return drop(address) + [.log(.info, address: address, "session ended; device dropped")]
            }
            return drop(address) + add(replacement, at: now) + tick(at: now)
        }
        if progressed { entry.backoff.succeeded() }
        // A link still up with no channel waiting: the session closed its channel, and the
        // kernel hands one over only when it makes a link.
        if entry.background, entry.linkHeld, !entry.linkUp { entry.releaseAt = now.advanced(by: linkReleaseDelay) }
        let step = entry.backoff.attempt
        let ceiling = entry.backoff.ceilingDelay(forAttempt: step)
        let delay = entry.backoff.nextDelay(using: &random)
        entry.phase = .waiting(until: now.advanced(by: delay))
        var actions: [Action] = []
        let why = error ?? "the session ended"
        if entry.background {
            // The kernel reconnects it; the backoff only keeps a failing session from looping.
            let when = "when the kernel connects it again, not before \(Self.seconds(delay))"
            if progressed {
                actions.append(.log(.warning, address: address, "disconnected: \(why); reconnecting \(when)"))
            } else if !entry.quiet, entry.loggedCeiling != ceiling {
                entry.loggedCeiling = ceiling
                entry.quiet = ceiling >= entry.backoff.maximum
                actions.append(.log(entry.quiet ? .notice : .info, address: address,
                                    "session failed (\(why)); next attempt \(when)" + (entry.quiet ? "; no further messages" : "")))
            }
        } else if progressed {
            actions.append(.log(.warning, address: address, "disconnected: \(why); reconnecting in \(Self.seconds(delay))"))
        } else if !entry.quiet, entry.loggedCeiling != ceiling {
            // One line per backoff step: a device that stays away says so a few times, then,
            // once the delay is at its cap, once more and no longer.
            entry.loggedCeiling = ceiling
            if ceiling >= entry.backoff.maximum {
                entry.quiet = true
                actions.append(.log(.notice, address: address,
                                    "not reachable (\(why)); retrying about every \(Self.seconds(ceiling)) without further messages"))
            } else {
                actions.append(.log(.info, address: address, "not reachable (\(why)); next attempt in \(Self.seconds(delay))"))
            }
        }
        entries[address] = entry
        return actions
    }

    /// SIGTERM/SIGINT: every running session is asked to end; the machine says ``Action/exit(abandoned:)``
    /// when all have, or when ``stopGrace`` is over.
    public mutating func stopRequested(at now: Instant) -> [Action] {
        guard !isStopping else { return [] }
        stopDeadline = now.advanced(by: stopGrace)
        var actions: [Action] = [.log(.notice, address: nil, "stopping: committing live minutes and closing links")]
        for address in entries.keys.sorted() {
            guard var entry = entries[address] else { continue }
            // The system must not go on connecting a device nobody serves.
            if entry.background { actions.append(.unwatch(address: address)) }
            switch entry.phase {
            case .waiting:
                entries[address] = nil
            case .attempting:
                entry.phase = .stopping
                entries[address] = entry
                actions.append(.stop(address: address))
            case .stopping:
                break
            }
        }
        if entries.isEmpty { actions += exitNow() }
        return actions
    }

    /// The system reports the device's link up: a waiting device starts when its backoff allows.
    public mutating func linkUp(_ address: String, at now: Instant) -> [Action] {
        guard var entry = entries[address], entry.background, !isStopping else { return [] }
        entry.linkUp = true
        entry.linkHeld = true
        entry.releaseAt = nil
        entries[address] = entry
        return tick(at: now)
    }

    /// The device's link was up when it was watched, without a channel handed over yet: the
    /// kernel's own connection may be completing (its channel follows), or someone else holds
    /// the link. Either way the gateway waits for a handover and never tears the link down:
    /// dropping a link that is still being set up is what tripped Debian 12's `hci_chan_del`
    /// BUG in the radio guest (docs/real-hardware.md).
    public mutating func linkHeldElsewhere(_ address: String, at now: Instant) -> [Action] {
        guard let entry = entries[address], entry.background, !isStopping, case .waiting = entry.phase else { return [] }
        return [.log(.info, address: address, "already connected: starting once the kernel hands its link over")]
    }

    /// The system reports the device's link down (a session on it ends by itself).
    public mutating func linkDown(_ address: String, at now: Instant) -> [Action] {
        guard var entry = entries[address], entry.background else { return [] }
        entry.linkUp = false
        entry.linkHeld = false
        entry.releaseAt = nil
        entries[address] = entry
        return []
    }

    /// The system cannot connect the device in the background (no such adapter, no permission,
    /// a kernel without Add Device): it is tried on its backoff timer instead.
    public mutating func watchFailed(_ address: String, error: String, at now: Instant) -> [Action] {
        guard var entry = entries[address], entry.background else { return [] }
        entry.background = false
        entries[address] = entry
        return [.log(.warning, address: address, "cannot be connected in the background (\(error)); trying it on a timer instead")] + tick(at: now)
    }

    private mutating func add(_ device: GatewayDevice, at now: Instant) -> [Action] {
        var entry = Entry(device: device, phase: .waiting(until: now), backoff: backoffTemplate)
        entry.background = inBackground(device)
        entries[device.address] = entry
        let how = entry.background ? "connecting when it is in range (in the background)" : "connecting when in range"
        var actions: [Action] = [.log(.info, address: device.address, "paired \(device.summary): \(how)")]
        if entry.background { actions.append(.watch(address: device.address)) }
        return actions
    }

    /// Forgets the device; the system stops connecting it.
    private mutating func drop(_ address: String) -> [Action] {
        guard let entry = entries.removeValue(forKey: address) else { return [] }
        return entry.background ? [.unwatch(address: address)] : []
    }

    private mutating func exitNow() -> [Action] {
        exited = true
        return [.exit(abandoned: [])]
    }

    static func seconds(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return milliseconds >= 10_000 ? "\(milliseconds / 1000) s" : "\(Double(milliseconds / 100) / 10) s"
    }
}

/// How important a log line is: the syslog levels journald reads from a `<N>` prefix.
public enum GatewayLogLevel: Int, Sendable, Comparable {
    case error = 3
    case warning = 4
    case notice = 5
    case info = 6
    case debug = 7

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
