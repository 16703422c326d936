import BandATT
import BandProtocol
import FirmwareCrypto
import ChipRuntime
import UARTFraming

/// The band's own logic on the chip: the same ``BandCore`` the Linux band ticks, driven by the
/// board's clock instead of `bandsim`'s run loop, its recorded minutes sent to the host as the
/// firmware's truth (debug message 0x87), which `bandsim serve --firmware … --truth FILE` writes
/// as truth lines (BandFirmware's `TruthLine`).
///
/// It starts when the host sends link message 0x10 (start time, seed, time zone; the host knows
/// the wall clock, the chip has none): that message builds the core — its minute ring and the
/// built-in `day` scenario are the only allocations, so it ends start-up — and every poll after
/// that ticks the core once per band second up to the board's band time (board uptime since the
/// message, at the SysTick scale the host set with 0x09). Same seed and start as a Linux band →
/// the same minute records, byte for byte (firmware-sim's ChipRuntimeTests and
/// Tests/checks/firmware-band.sh compare them).
///
/// **Flash.** Every minute the core records is programmed into the ring's flash pages
/// (``FlashMinuteLog``) before it is reported, and the keys and acknowledged position go to the
/// state log (``FlashStateLog``) whenever they change. At boot (``start(bootCount:board:)``) both
/// are recovered without allocating and what was found goes into the flash report (0x86); 0x10
/// then rebuilds the RAM ring the band reads from out of the flash pages, and the band's boot
/// epoch is the boot record's boot count. So the ring survives a firmware reset and a host
/// restart, and the sequence numbers continue.
///
/// **GATT services.** 0x10 builds the same ``BandServices`` the Linux band runs around that core —
/// the band's whole table (activity service with live counters, history control point, pairing and
/// the HMAC challenge, Current Time, Heart Rate, RSC, Battery, Device Information) — with
/// ``ChipLinkHost`` as its host: PDUs out as UART frames, recorded minutes out as 0x87. From then
/// on the reader's ATT PDUs (link messages 0x02/0x03 for its connection) go to the band's table
/// instead of the core's bring-up table; the same PDUs get the same answers as on Linux
/// (ChipBandServiceTests).
public struct ChipBand: FirmwareApplication {
    /// Minute records the chip's ring holds: one day (16 bytes each, 23 KB of its 64 KB RAM).
    public static let historyCapacity = 1_440
    /// Band seconds ticked per poll at most, so the UART keeps being served at 3600×.
    public static let maximumTicksPerPoll = 120
    /// ATT_MTU the band offers on the chip (its transmit buffer; the BLE 4.2 data-length maximum).
    public static let serverMTU = 247
    /// GAP Device Name on the chip (the bring-up table's name too).
    public static let deviceName = "BandKit M4"

    package private(set) var services: BandServices<ChipLinkHost>?
    package var core: BandCore? { services?.core }
    /// Board uptime (band milliseconds) when the band started, and the band's true time then.
    private var startUptime: UInt64 = 0
    private var startTime = BandInstant(milliseconds: 0)
    public private(set) var counters = Counters()
    /// This boot's count (the boot record's): the band's boot epoch.
    private var bootCount: UInt32 = 1
    /// The flash pages: nil when the board has too few (the band then keeps RAM only).
    private var ringLog: FlashMinuteLog?
    private var stateLog: FlashStateLog?
    /// The state as last written to (or recovered from) the state log.
    private var persistedState = FlashStateLog.State()
    /// The state last written, once the band runs, held inline: keeping `persistedState.keys` (the
    /// key store's own array) would make the key store's next change copy it — a heap allocation
    /// after start-up, at every pairing, authentication or acknowledgement.
    private var writtenAcknowledged: UInt32 = 0
    private var writtenKeys = InlineArray<4, KeyStore.Entry?>(repeating: nil)   // KeyStore.slotCount
    /// The day plan the host sent (link 0x12) for the band to run instead of `day`: the segments
    /// so far, how many the host announced, and whether one was refused (then 0x10 starts nothing).
    private var scenarioSegments: [ScenarioSegment] = []
    private var scenarioCount = 0
    private var scenarioRefused = false
    /// The host's `drop=P`, `corrupt=P`, `disconnect-random=P`, `clock-drift=PPM`, `battery=PERCENT` (link 0x13), for the band 0x10 builds.
    private var faults = BandFaultMessage.Faults()
    /// Link messages 0x02 since boot (``linkChanged(connected:board:)``).
    private var connectsSinceBoot: UInt32 = 0

    /// What the band status message (0x88) reports.
    public struct Counters: Equatable {
        public var ticks: UInt64 = 0
        public var tickCycles: UInt64 = 0
        public var records: UInt32 = 0
        public var recordTickCycles: UInt64 = 0
        /// CPU cycles spent programming the minute records into flash (one slot each).
        public var flashWriteCycles: UInt64 = 0
    }

    public init() {}

    public mutating func start<B: Board>(bootCount: UInt32, board: inout B) -> FlashRecoveryReport {
        self.bootCount = bootCount
        guard board.flashPageCount >= FlashLayout.pageCount else {
            FirmwareOutput.log("flash: too few pages, the ring is kept in RAM only", on: &board)
            return FlashRecoveryReport()
        }
        var ring = FlashMinuteLog(pageSize: board.flashPageSize)
        ring.recover(on: &board)
        var state = FlashStateLog(pageSize: board.flashPageSize)
        persistedState = state.recover(on: &board)
        ringLog = ring
        stateLog = state
        let oldest = ring.oldest(capacity: Self.historyCapacity, acknowledged: persistedState.acknowledgedThrough)
        // The records come oldest first: the last one is the newest (its minute start, bytes 0–3 LE).
        var newestMinuteStart: UInt32 = 0
        ring.forEachRecord(on: &board) { _, record in
            newestMinuteStart = UInt32(record[0]) | UInt32(record[1]) << 8 | UInt32(record[2]) << 16 | UInt32(record[3]) << 24
        }
        return FlashRecoveryReport(records: ring.next &- oldest, damagedSlots: ring.damagedSlots &+ state.damagedSlots,
                                   nextSequence: ring.next, newestMinuteStart: newestMinuteStart)
    }

    public mutating func received<B: Board>(link code: UInt8, _ body: UnsafeRawBufferPointer, board: inout B) -> ApplicationLinkResult {
        switch code {
        case LinkMessage.bandConfigure:
            guard body.count == LinkMessage.bandConfigureByteCount else {
                FirmwareOutput.log("band configure: not 17 bytes", on: &board)
                return .handled
            }
            guard core == nil else {
                FirmwareOutput.log("band configure: already running (once per boot)", on: &board)
                return .handled
            }
            let start = Int64(bitPattern: Self.word64(body, 0))
            let seed = Self.word64(body, 8)
            let zone = Int8(bitPattern: body[16])
            guard start >= 0, start <= Int64(UInt32.max), (-48...56).contains(zone) else {
                FirmwareOutput.log("band configure: start or time zone out of range", on: &board)
                return .handled
            }
            guard !scenarioRefused, scenarioSegments.count == scenarioCount else {
                FirmwareOutput.log("band configure: the scenario is incomplete or was refused; not started", on: &board)
                return .handled
            }
            configure(start: BandInstant(seconds: start), seed: seed, timeZoneQuarterHours: zone, board: &board)
            FirmwareOutput.log("band started", on: &board)
            return .startUpComplete
        case LinkMessage.scenarioSegment:
            receivedScenarioSegment(body, board: &board)
            return .handled
        case LinkMessage.bandFaults:
            guard core == nil else {
                FirmwareOutput.log("band faults: the band is running (send them before 0x10); ignored", on: &board)
                return .handled
            }
            guard let faults = BandFaultMessage.decode(body) else {
                FirmwareOutput.log("band faults: not 33 bytes or a value out of range; ignored", on: &board)
                return .handled
            }
            self.faults = faults
            return .handled
        case LinkMessage.bandStatusRequest:
            var body = InlineArray<36, UInt8>(repeating: 0)
            Self.put(counters.ticks, into: &body, at: 0, size: 8)
            Self.put(counters.tickCycles, into: &body, at: 8, size: 8)
            Self.put(UInt64(counters.records), into: &body, at: 16, size: 4)
            Self.put(counters.recordTickCycles, into: &body, at: 20, size: 8)
            Self.put(counters.flashWriteCycles, into: &body, at: 28, size: 8)
            var span = body.mutableSpan
            span.withUnsafeMutableBytes { FirmwareOutput.send(.debug, code: LinkMessage.bandStatus, UnsafeRawBufferPointer($0), on: &board) }
            return .handled
        default:
            return .unknown
        }
    }

    /// One segment of the host's scenario (link 0x12), index 0 first.
    private mutating func receivedScenarioSegment<B: Board>(_ body: UnsafeRawBufferPointer, board: inout B) {
        guard core == nil else {
            return FirmwareOutput.log("scenario segment: the band is running (send the scenario before 0x10)", on: &board)
        }
        if body.count == ScenarioSegmentMessage.byteCount, Int(body[1]) > ScenarioSegmentMessage.maximumSegments {
            scenarioRefused = true
            return FirmwareOutput.log("scenario segment: more segments than the chip holds (32); refused", on: &board)
        }
        guard let message = ScenarioSegmentMessage.decode(body) else {
            scenarioRefused = true
            return FirmwareOutput.log("scenario segment: not 22 bytes or out of range; refused", on: &board)
        }
        if message.index == 0 {
            scenarioSegments = []
            scenarioSegments.reserveCapacity(message.count)   // one allocation, before start-up ends
            scenarioCount = message.count
            scenarioRefused = false
        }
        guard message.index == scenarioSegments.count, message.count == scenarioCount else {
            scenarioRefused = true
            return FirmwareOutput.log("scenario segment: out of order; the scenario is refused", on: &board)
        }
        scenarioSegments.append(message.segment)
    }

    /// Builds the band as the Linux band does for a freshly formatted flash (`SimulatedBand`
    /// with `--seed`, `--start` and no faults): the core's random stream is the seed's fork 2,
    /// the history ID the seed's fork 1 (as Linux draws it for a reproducible band); the ring,
    /// keys and acknowledged position come back from the flash pages. Secrets come from the
    /// HMAC_DRBG instantiated from SHA-256 of the seed and start (QEMU's entropy is what the host
    /// passes; a real chip's is its RNG peripheral, docs/firmware.md).
    mutating func configure<B: Board>(start: BandInstant, seed: UInt64, timeZoneQuarterHours: Int8, board: inout B) {
        let uptime = board.uptimeMilliseconds()
        var configuration = BandConfiguration(start: start)
        configuration.seed = seed
        configuration.timeZoneQuarterHours = timeZoneQuarterHours
        configuration.historyCapacity = Self.historyCapacity
        configuration.deviceName = Self.deviceName
        if scenarioCount > 0 { configuration.scenario = Scenario(name: "host", segments: scenarioSegments) }
        if faults.drop > 0 { configuration.faults.append(.drop(faults.drop)) }
        if faults.corrupt > 0 { configuration.faults.append(.corrupt(faults.corrupt)) }
        if faults.disconnect > 0 { configuration.faults.append(.disconnectRandom(faults.disconnect)) }
        if faults.clockDriftPPM != 0 { configuration.faults.append(.clockDrift(faults.clockDriftPPM)) }
        if let battery = faults.battery { configuration.faults.append(.battery(Int(battery))) }
        var idRandom = Xoshiro256StarStar(seed: seed).fork(1)
        var flash = FlashImage(historyID: UInt32(truncatingIfNeeded: idRandom.next()), capacity: Self.historyCapacity)
        flash.bootEpoch = UInt16(truncatingIfNeeded: bootCount &- 1)   // boot() moves it on to this boot's count
        if let ringLog {
            let oldest = ringLog.oldest(capacity: Self.historyCapacity, acknowledged: persistedState.acknowledgedThrough)
            flash.ring.restore(oldest: oldest, next: ringLog.next, acknowledgedThrough: persistedState.acknowledgedThrough)
            ringLog.forEachRecord(on: &board) { sequence, bytes in flash.ring.restoreRecord(sequence, bytes) }
            flash.keys = KeyStore(entries: persistedState.keys)
        }
        var material = InlineArray<16, UInt8>(repeating: 0)
        for byte in 0..<8 {
            material[byte] = UInt8(truncatingIfNeeded: seed >> UInt64(8 * byte))
            material[8 + byte] = UInt8(truncatingIfNeeded: UInt64(bitPattern: start.seconds) >> UInt64(8 * byte))
        }
        var materialSpan = material.mutableSpan
        let host = materialSpan.withUnsafeMutableBytes { raw in
            var entropy = SHA256()
            entropy.update(UnsafeRawBufferPointer(raw))
            let digest = entropy.finalize()
            return digest.withUnsafeBytes { ChipLinkHost(entropy: $0, nonce: UnsafeRawBufferPointer(raw)) }
        }
        services = BandServices(configuration: configuration, flash: flash, formatted: true, serverMTU: Self.serverMTU, host: host)
        services!.host.linkNumber = connectsSinceBoot   // a reader that connected before the band started
        writtenAcknowledged = persistedState.acknowledgedThrough
        for index in 0..<writtenKeys.count {
            writtenKeys[index] = index < persistedState.keys.count ? persistedState.keys[index] : nil
        }
        persistedState = FlashStateLog.State()   // lets go of the recovered keys' array
        startUptime = uptime
        startTime = start
    }

    /// An ATT PDU from the reader: the band's table answers once the band runs.
    public mutating func receivedATT<B: Board>(_ pdu: UnsafeRawBufferPointer, board: inout B) -> Bool {
        guard let services else { return false }
        if !services.isConnected, !services.host.linkClosedByBand {
            // A reader that connected before the band started: its connection starts now.
            services.connect(mtu: ATT.defaultLEMTU)
        }
        services.handlePDU(pdu)
        services.host.flush(to: &board)
        persistStateIfChanged(on: &board)
        return true
    }

    /// Link messages 0x02/0x03: a reader connected (ATT starts fresh, MTU 23) or left. Every
    /// 0x02 since boot is counted, before the band starts too: the count names the link in a 0x89.
    public mutating func linkChanged<B: Board>(connected: Bool, board: inout B) {
        if connected { connectsSinceBoot &+= 1 }
        guard let services else { return }
        services.disconnect(.host)
        services.host.linkClosedByBand = false
        services.host.linkNumber = connectsSinceBoot
        if connected { services.connect(mtu: ATT.defaultLEMTU) }
        services.host.flush(to: &board)
    }

    public mutating func poll<B: Board>(board: inout B) {
        guard let services else { return }
        let now = startTime.adding(milliseconds: Int64(truncatingIfNeeded: board.uptimeMilliseconds() &- startUptime))
        var ticks = 0
        while services.nextTickTime <= now, ticks < Self.maximumTicksPerPoll {
            let recordsBefore = services.host.records
            let before = board.cycleCount()
            services.tick()
            let cycles = board.cycleCount() &- before
            counters.ticks &+= 1
            counters.tickCycles &+= cycles
            if services.host.records != recordsBefore {
                counters.records &+= 1
                counters.recordTickCycles &+= cycles
                // Durable before reported: the 0x87 frame waits in the outbox until the record
                // is in its flash page.
                let beforeFlash = board.cycleCount()
                persist(services.host.lastRecordedSequence, on: &board)
                counters.flashWriteCycles &+= board.cycleCount() &- beforeFlash
            }
            services.host.flush(to: &board)
            ticks += 1
        }
        services.continueTransfer()
        services.host.flush(to: &board)
        persistStateIfChanged(on: &board)
    }

    /// Programs record `sequence` into the ring's flash pages (durable before it is reported).
    private mutating func persist<B: Board>(_ sequence: UInt32, on board: inout B) {
        guard ringLog != nil else { return }
        var record = InlineArray<16, UInt8>(repeating: 0)   // MinuteRecord.size
        core!.flash.ring.withRecordBytes(sequence) { stored in
            for index in 0..<MinuteRecord.size { record[index] = stored[index] }
        }
        var span = record.mutableSpan
        span.withUnsafeMutableBytes { ringLog!.append(sequence, UnsafeRawBufferPointer($0), on: &board) }
    }

    /// Writes the keys and the acknowledged position to the state log when they changed (a
    /// pairing, an acknowledged transfer).
    private mutating func persistStateIfChanged<B: Board>(on board: inout B) {
        guard stateLog != nil, let services else { return }
        var changed = services.core.flash.ring.acknowledgedThrough != writtenAcknowledged
        let entries = services.core.flash.keys.entries
        for index in 0..<writtenKeys.count {
            if writtenKeys[index] != (index < entries.count ? entries[index] : nil) { changed = true }
        }
        guard changed else { return }
        stateLog!.write(FlashStateLog.State(acknowledgedThrough: services.core.flash.ring.acknowledgedThrough, keys: entries), on: &board)
        writtenAcknowledged = services.core.flash.ring.acknowledgedThrough
        for index in 0..<writtenKeys.count { writtenKeys[index] = index < entries.count ? entries[index] : nil }
    }

    private static func word64(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt64 {
        var value: UInt64 = 0
        for byte in 0..<8 { value |= UInt64(bytes[offset + byte]) << UInt64(8 * byte) }
        return value
    }

    private static func put<let n: Int>(_ value: UInt64, into bytes: inout InlineArray<n, UInt8>, at offset: Int, size: Int) {
        for byte in 0..<size { bytes[offset + byte] = UInt8(truncatingIfNeeded: value >> UInt64(8 * byte)) }
    }
}
