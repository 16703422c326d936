import BandATT
import BandGATT
import BandProtocol
import BandWire

/// The band's GATT services — the attribute table (``BandAttributeTable``), the activity service
/// (live counters with boot epoch; history control point with cursor, CRC-32 and
/// acknowledgement; pairing and the HMAC-SHA256 challenge), Current Time, Heart Rate, RSC,
/// Battery and Device Information with their notifications and indications — around the band's
/// logic (``BandCore``), on one ATT link at a time. One implementation for both targets: Linux's
/// `SimulatedBand` and the chip's ``ChipBand`` each drive it with their own ``BandServiceHost``.
///
/// Single-threaded and driven from outside, like firmware's main loop: ``advance(to:)`` moves
/// true time forward (one sensor tick per second, notifications as they fall due),
/// ``handlePDU(_:)`` answers what the client sent and ``continueTransfer()`` sends the next burst
/// of a history transfer. Embedded-Swift-clean: the two PDU buffers and the connection are made
/// once here; nothing allocates on the packet path.
public final class BandServices<Host: BandServiceHost> {
    public let configuration: BandConfiguration
    /// ATT_MTU this band offers (Linux: 517; the chip: its transmit buffer, 247).
    public let serverMTU: Int
    public var host: Host
    package var core: BandCore
    var faults: FaultPlan
    private var secretRandom: Xoshiro256StarStar
    public private(set) var trueTime: BandInstant
    /// True time of the last boot, for run-time faults.
    private var bootTime: BandInstant
    private var nextTick: BandInstant
    private let link: ServiceConnection
    private var linkUp = false
    /// The connection, nil when none.
    var connection: ServiceConnection? { linkUp ? link : nil }
    private var connectionCount = 0
    let transmitBuffer: UnsafeMutableRawBufferPointer
    let valueBuffer: UnsafeMutableRawBufferPointer
    /// The Adjust Reason last applied to the clock (CTS 1.1 §3.1.1).
    var adjustReason: CurrentTime.AdjustReason = []
    var heartRateNotificationCount = 0

    /// Boots a band on `flash`. On a freshly formatted flash (`formatted`) the band first lives
    /// through ``BandConfiguration/historyDays`` without a reader (the records go to the host's
    /// ``BandServiceHost/minuteRecorded(_:_:)``, which nobody may be listening to yet).
    public init(configuration: BandConfiguration, flash: FlashImage, formatted: Bool, serverMTU: Int, host: Host) {
        self.configuration = configuration
        self.serverMTU = serverMTU
        self.host = host
        let root = Xoshiro256StarStar(seed: configuration.seed)
        faults = FaultPlan(configuration.faults + configuration.scenario.faults, random: root.fork(3))
        secretRandom = root.fork(4)
        let start = configuration.start
        let backfillStart = BandInstant(seconds: start.seconds - Int64(formatted ? configuration.historyDays : 0) * 86_400)
        var backfillConfiguration = configuration
        backfillConfiguration.start = backfillStart
        core = BandCore(configuration: backfillConfiguration, flash: flash, random: root.fork(2), faults: faults)
        trueTime = backfillStart
        bootTime = start
        nextTick = backfillStart
        link = ServiceConnection(serverMTU: serverMTU)
        transmitBuffer = .allocate(byteCount: serverMTU, alignment: 8)
        valueBuffer = .allocate(byteCount: ATT.maximumAttributeValueLength, alignment: 8)
        core.boot(at: backfillStart)
        if backfillStart < start {
            // The band has been worn for `historyDays` already: live through them without a reader.
            while nextTick < start {
                let events = core.tick(at: nextTick, drainBattery: false)
                if let recorded = events.recorded { self.host.minuteRecorded(recorded.sequence, recorded.record) }
                nextTick = nextTick.adding(milliseconds: 1000)
            }
            trueTime = start
        }
    }

    deinit {
        transmitBuffer.deallocate()
        valueBuffer.deallocate()
    }

    // MARK: State

    public var flash: FlashImage { core.flash }
    public var bootEpoch: UInt16 { core.bootEpoch }
    public var clock: BandClock { core.clock }
    public var isConnected: Bool { linkUp }
    /// Counts connections since boot (the current one's number while connected).
    public var connectionNumber: Int { connectionCount }
    public var liveActivity: LiveActivity { core.liveActivity(at: trueTime) }
    public var batteryLevel: UInt8 { core.batteryLevel }
    /// The true time of the next sensor tick or pairing deadline (for an event loop's poll deadline).
    public var nextDeadline: BandInstant {
        var deadline = nextTick
        if let pairing = connection?.pairing, pairing.deadline < deadline { deadline = pairing.deadline }
        return deadline
    }
    /// True time of the next sensor tick.
    public var nextTickTime: BandInstant { nextTick }
    /// A history transfer is sending: the event loop should come back as soon as the link has room.
    public var hasPendingWork: Bool { connection?.transfer != nil && connection?.awaitingConfirmation == false }
    /// True once a pairing prompt is out and no answer has come yet (for `--confirm ask`).
    public var pairingPromptPending: Bool {
        connection?.pairing != nil && connection?.pairing?.answer == nil && configuration.confirmation == .ask
    }

    /// Calls `body` with every stored record, oldest first.
    public func forEachStoredRecord(_ body: (UInt32, MinuteRecord) -> Void) {
        var sequence = core.flash.ring.oldest
        while sequence != core.flash.ring.next {
            body(sequence, core.flash.ring.record(sequence))
            sequence &+= 1
        }
    }

    // MARK: Connections

    /// A link came up with ATT_MTU `mtu` (replacing any current connection, which is dropped).
    public func connect(mtu: Int) {
        if linkUp { disconnect(.replaced) }
        connectionCount += 1
        link.reset(number: connectionCount, mtu: mtu, serverMTU: serverMTU)
        linkUp = true
        host.report(.connected(connection: connectionCount))
    }

    /// Drops the connection (a radio link loss, a fault, a reboot, or the host's reason).
    public func disconnect(_ reason: BandDisconnectReason) {
        guard let current = connection else { return }
        if let transfer = current.transfer {
            host.report(.transferInterrupted(connection: current.number, sent: transfer.sent, count: transfer.count))
        }
        host.closeLink()
        linkUp = false
        host.report(.disconnected(connection: current.number, reason: reason))
    }

    // MARK: Time

    /// Runs the band up to true time `target`: every whole second in between is one sensor
    /// tick, with its notifications; scheduled faults fire on the way.
    public func advance(to target: BandInstant) {
        while nextTick <= target { tick() }
        if target > trueTime { trueTime = target }
    }

    public func advance(by duration: Duration) { advance(to: trueTime + duration) }

    /// One band second at ``nextTickTime``: faults due, the sensor tick, the minute it closes,
    /// pairing deadlines and the second's notifications.
    public func tick() {
        trueTime = nextTick
        let runTime = nextTick.milliseconds - bootTime.milliseconds
        if FaultPlan.takeDue(&faults.rebootTimes, runTime: runTime) {
            reboot()
        }
        if FaultPlan.takeDue(&faults.disconnectTimes, runTime: runTime) {
            disconnect(.faultAt)
        }
        let events = core.tick(at: nextTick)
        if let recorded = events.recorded { recordedMinute(recorded) }
        if events.batteryChanged { host.flashChanged() }
        expirePairing()
        secondElapsed(events)
        nextTick = nextTick.adding(milliseconds: 1000)
    }

    /// A reboot: counters reset, boot epoch +1, the minute in progress is lost, flash is kept,
    /// and the radio drops the connection.
    public func reboot() {
        disconnect(.rebooted)
        core.boot(at: trueTime)
        host.report(.rebooted(bootEpoch: core.bootEpoch))
        host.flashChanged()
    }

    func recordedMinute(_ recorded: (sequence: UInt32, record: MinuteRecord)) {
        host.minuteRecorded(recorded.sequence, recorded.record)
    }

    // MARK: Secrets

    /// Fills `buffer` with key or challenge bytes: the host's secret source, or the seeded
    /// stream in test mode. False: no entropy.
    func fillSecret(_ buffer: UnsafeMutableRawBufferPointer) -> Bool {
        if configuration.deterministicSecrets {
            for i in 0..<buffer.count { buffer[i] = UInt8(truncatingIfNeeded: secretRandom.next()) }
            return true
        }
        return host.fillSecret(buffer)
    }

    func secret16() -> FixedBytes<16>? {
        var bytes = InlineArray<16, UInt8>(repeating: 0)
        var span = bytes.mutableSpan
        let filled = span.withUnsafeMutableBytes { fillSecret($0) }
        guard filled else { return nil }
        var out = FixedBytes<16>()
        for i in 0..<16 { _ = out.append(bytes[i]) }
        return out
    }
}
