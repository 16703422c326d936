import BandATT
import BandCrypto
import BandGATT
import BandLink
import BandProtocol
import BandWire

/// A simulated band: sensors, flash, clock and a GATT server on one ATT bearer at a time.
///
/// Single-threaded and driven from outside, like firmware's main loop: ``advance(to:)`` moves
/// the simulation's true time forward (one sensor tick per second, notifications as they fall
/// due), and ``pump()`` handles whatever PDUs the connected reader has sent. ``BandRunner``
/// wraps both in a `poll()` loop for `bandsim serve`; tests call them directly over a
/// `SeqPacketLink.pair()`:
///
/// ```swift
/// let (bandSide, readerSide) = try SeqPacketLink.pair()
/// let band = try SimulatedBand(configuration: BandConfiguration(start: start))
/// band.connect(bandSide)
/// try readerSide.send(bytes("02 0002"))            // Exchange MTU Request, 512
/// band.pump()
/// #expect(try readerSide.receive(timeout: .zero) == bytes("03 0502"))
/// band.advance(by: .seconds(60))                    // a minute of sensing
/// ```
///
/// The packet path allocates nothing: PDUs are received into and built in two buffers made
/// once here.
public final class SimulatedBand {
    public let configuration: BandConfiguration
    var core: BandCore
    var faults: FaultPlan
    private var secretRandom: Xoshiro256StarStar
    public private(set) var trueTime: BandInstant
    /// True time of the last boot, for run-time faults.
    private var bootTime: BandInstant
    private var nextTick: BandInstant
    var connection: BandConnection?
    private var connectionCount = 0
    let receiveBuffer: UnsafeMutableRawBufferPointer
    let transmitBuffer: UnsafeMutableRawBufferPointer
    let valueBuffer: UnsafeMutableRawBufferPointer
    /// The Adjust Reason last applied to the clock (CTS 1.1 §3.1.1).
    var adjustReason: CurrentTime.AdjustReason = []
    var heartRateNotificationCount = 0
    /// True once a pairing prompt is out and no answer has come yet (for `--confirm ask`).
    public var pairingPromptPending: Bool { connection?.pairing != nil && connection?.pairing?.answer == nil && configuration.confirmation == .ask }

    /// Each minute record as it is written to flash: `--truth` listens here.
    public var onMinuteRecorded: ((UInt32, MinuteRecord) -> Void)?
    /// Human-readable events (pairing, wrong proofs, faults, reboots).
    public var log: (String) -> Void = { _ in }
    /// Asked when a pairing needs the wearer's answer under `--confirm ask`; answer later with
    /// ``answerPairing(_:)``.
    public var onPairingPrompt: ((UInt64) -> Void)?
    /// Flash changed in a way worth persisting (keys, acknowledgement, boot).
    public var onFlashChanged: (() -> Void)?

    /// Boots a band. `flash` is the state restored from `--state` (nil: freshly formatted).
    public init(configuration: BandConfiguration, flash: FlashImage? = nil) throws(CryptoError) {
        self.configuration = configuration
        let root = Xoshiro256StarStar(seed: configuration.seed)
        faults = FaultPlan(configuration.faults + configuration.scenario.faults, random: root.fork(3))
        secretRandom = root.fork(4)
        var image: FlashImage
        let formatted = flash == nil
        if let flash {
            image = flash
        } else {
            var idRandom = root.fork(1)
            let historyID = configuration.deterministicSecrets
                ? UInt32(truncatingIfNeeded: idRandom.next())
                : try Self.secureUInt32()
            image = FlashImage(historyID: historyID, capacity: configuration.historyCapacity)
        }
        let start = configuration.start
        let backfillStart = BandInstant(seconds: start.seconds - Int64(formatted ? configuration.historyDays : 0) * 86_400)
        var backfillConfiguration = configuration
        backfillConfiguration.start = backfillStart
        core = BandCore(configuration: backfillConfiguration, flash: image, random: root.fork(2), faults: faults)
        trueTime = backfillStart
        bootTime = start
        nextTick = backfillStart
        receiveBuffer = .allocate(byteCount: ATT.maximumMTU, alignment: 8)
        transmitBuffer = .allocate(byteCount: ATT.maximumMTU, alignment: 8)
        valueBuffer = .allocate(byteCount: ATT.maximumAttributeValueLength, alignment: 8)
        core.boot(at: backfillStart)
        if backfillStart < start {
            // The band has been worn for `historyDays` already: live through them without a reader.
            while nextTick < start {
                let events = core.tick(at: nextTick, drainBattery: false)
                if let recorded = events.recorded { onMinuteRecorded?(recorded.sequence, recorded.record) }
                nextTick = nextTick + .seconds(1)
            }
            trueTime = start
        }
    }

    deinit {
        receiveBuffer.deallocate()
        transmitBuffer.deallocate()
        valueBuffer.deallocate()
    }

    /// The records simulated before `start` (``BandConfiguration/historyDays``) were produced
    /// inside `init`, before anyone could listen; this replays them from flash for `--truth`.
    public func replayStoredRecords(_ body: (UInt32, MinuteRecord) -> Void) {
        var sequence = core.flash.ring.oldest
        while sequence != core.flash.ring.next {
            body(sequence, core.flash.ring.record(sequence))
            sequence &+= 1
        }
    }

    // MARK: State

    public var flash: FlashImage { core.flash }
    public var bootEpoch: UInt16 { core.bootEpoch }
    public var clock: BandClock { core.clock }
    public var isConnected: Bool { connection != nil }
    /// The connection's descriptor for an event loop's `poll()` (nil without a connection or for in-memory links).
    public var connectionDescriptor: Int32? { connection?.bearer.pollDescriptor }
    public var liveActivity: LiveActivity { core.liveActivity(at: trueTime) }
    public var batteryLevel: UInt8 { core.batteryLevel }
    /// The true time of the next sensor tick (for an event loop's poll deadline).
    public var nextDeadline: BandInstant {
        var deadline = nextTick
        if let pairing = connection?.pairing, pairing.deadline < deadline { deadline = pairing.deadline }
        return deadline
    }
    /// A history transfer is sending: the event loop should come back as soon as the link has room.
    public var hasPendingWork: Bool { connection?.transfer != nil && connection?.awaitingConfirmation == false }

    // MARK: Connections

    /// Takes `bearer` as the connection (replacing any current one, which is dropped).
    public func connect(_ bearer: any ATTBearer) {
        if connection != nil { disconnect(reason: "replaced by a new connection") }
        connectionCount += 1
        let new = BandConnection(bearer: bearer, number: connectionCount)
        connection = new
        log("connection \(connectionCount): connected")
    }

    /// Drops the connection (a radio link loss, a fault, or a reboot).
    public func disconnect(reason: String) {
        guard let current = connection else { return }
        if let transfer = current.transfer {
            log("connection \(current.number): history transfer interrupted after \(transfer.sent) of \(transfer.count) records")
        }
        current.bearer.close()
        connection = nil
        log("connection \(current.number): disconnected (\(reason))")
    }

    // MARK: Time

    /// Runs the band up to true time `target`: every whole second in between is one sensor
    /// tick, with its notifications; scheduled faults fire on the way.
    public func advance(to target: BandInstant) {
        while nextTick <= target {
            trueTime = nextTick
            let runTime = (nextTick - bootTime).wholeMilliseconds
            if FaultPlan.takeDue(&faults.rebootTimes, runTime: runTime) {
                reboot()
            }
            if FaultPlan.takeDue(&faults.disconnectTimes, runTime: runTime) {
                disconnect(reason: "fault disconnect-at")
            }
            let events = core.tick(at: nextTick)
            if let recorded = events.recorded { recordedMinute(recorded) }
            if events.batteryChanged { onFlashChanged?() }
            expirePairing()
            secondElapsed(events)
            nextTick = nextTick + .seconds(1)
        }
        if target > trueTime { trueTime = target }
    }

    public func advance(by duration: Duration) { advance(to: trueTime + duration) }

    /// A reboot: counters reset, boot epoch +1, the minute in progress is lost, flash is kept,
    /// and the radio drops the connection.
    public func reboot() {
        disconnect(reason: "band rebooted")
        core.boot(at: trueTime)
        log("band rebooted: boot epoch \(core.bootEpoch)")
        onFlashChanged?()
    }

    func recordedMinute(_ recorded: (sequence: UInt32, record: MinuteRecord)) {
        onMinuteRecorded?(recorded.sequence, recorded.record)
    }

    // MARK: Secrets

    /// Fills `buffer` with key or challenge bytes: the CSPRNG, or the seeded stream in test mode.
    func fillSecret(_ buffer: UnsafeMutableRawBufferPointer) throws(CryptoError) {
        if configuration.deterministicSecrets {
            for i in 0..<buffer.count { buffer[i] = UInt8(truncatingIfNeeded: secretRandom.next()) }
        } else {
            try SecureRandom.fill(buffer)
        }
    }

    func secret16() throws(CryptoError) -> FixedBytes<16> {
        var bytes = InlineArray<16, UInt8>(repeating: 0)
        var span = bytes.mutableSpan
        try span.withUnsafeMutableBytes { (raw) throws(CryptoError) in try fillSecret(raw) }
        var out = FixedBytes<16>()
        for i in 0..<16 { _ = out.append(bytes[i]) }
        return out
    }

    private static func secureUInt32() throws(CryptoError) -> UInt32 {
        let bytes = try SecureRandom.bytes(count: 4)
        return bytes.reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }
}
