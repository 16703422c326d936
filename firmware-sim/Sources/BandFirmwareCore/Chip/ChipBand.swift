import BandATT
import BandProtocol
import FirmwareCrypto
import FirmwareBoard
import UARTFraming

/// The band on the chip: the same ``BandServices`` the Linux band runs — ``BandCore``'s sensing
/// and minute ring behind the band's whole GATT table (activity service with live counters,
/// history control point, pairing and the HMAC challenge, Current Time, Heart Rate, RSC,
/// Battery, Device Information) — driven by the board's clock instead of `bandsim`'s run loop,
/// with ``ChipLinkHost`` as its host: PDUs out as UART frames, recorded minutes out as the
/// firmware's truth (debug message 0x87), which `bandsim serve --firmware … --truth FILE` writes
/// as ``TruthLine``s.
///
/// It starts when the host sends link message 0x10 (start time, seed, time zone; the host knows
/// the wall clock, the chip has none): that message builds the services — the minute ring, the
/// built-in `day` scenario, the two PDU buffers and the outbox are the only allocations, so it
/// ends start-up — and every poll after that ticks the band once per band second up to the
/// board's band time (board uptime since the message, at the SysTick scale the host set with
/// 0x09). From then on the reader's ATT PDUs (link messages 0x02/0x03 for its connection) go to
/// the band's table instead of the core's bring-up table. Same seed and start as a Linux band →
/// the same minute records, byte for byte (FirmwareBoardTests and Tests/checks/firmware-band.sh
/// compare them), and the same answers to the same PDUs (ChipBandServiceTests).
///
/// Not on the chip yet: the ring and keys are in RAM, not in flash pages.
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

    /// What the band status message (0x88) reports.
    public struct Counters: Equatable {
        public var ticks: UInt64 = 0
        public var tickCycles: UInt64 = 0
        public var records: UInt32 = 0
        public var recordTickCycles: UInt64 = 0
    }

    public init() {}

    public mutating func received<B: Board>(link code: UInt8, _ body: UnsafeRawBufferPointer, board: inout B) -> ApplicationLinkResult {
        switch code {
        case LinkMessage.bandConfigure:
            guard body.count == LinkMessage.bandConfigureByteCount else {
                FirmwareOutput.log("band configure: not 17 bytes", on: &board)
                return .handled
            }
            guard services == nil else {
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
            configure(start: BandInstant(seconds: start), seed: seed, timeZoneQuarterHours: zone, uptime: board.uptimeMilliseconds())
            FirmwareOutput.log("band started", on: &board)
            return .startUpComplete
        case LinkMessage.bandStatusRequest:
            var body = InlineArray<28, UInt8>(repeating: 0)
            Self.put(counters.ticks, into: &body, at: 0, size: 8)
            Self.put(counters.tickCycles, into: &body, at: 8, size: 8)
            Self.put(UInt64(counters.records), into: &body, at: 16, size: 4)
            Self.put(counters.recordTickCycles, into: &body, at: 20, size: 8)
            var span = body.mutableSpan
            span.withUnsafeMutableBytes { FirmwareOutput.send(.debug, code: LinkMessage.bandStatus, UnsafeRawBufferPointer($0), on: &board) }
            return .handled
        default:
            return .unknown
        }
    }

    /// Builds the band as the Linux band does for a freshly formatted flash (`SimulatedBand`
    /// with `--seed`, `--start` and no faults): the core's random stream is the seed's fork 2,
    /// the history ID the seed's fork 1 (as Linux draws it for a reproducible band). Secrets come
    /// from the HMAC_DRBG instantiated from SHA-256 of the seed and start (QEMU's entropy is what
    /// the host passes; a real chip's is its RNG peripheral, docs/firmware.md).
    mutating func configure(start: BandInstant, seed: UInt64, timeZoneQuarterHours: Int8, uptime: UInt64) {
        var configuration = BandConfiguration(start: start)
        configuration.seed = seed
        configuration.timeZoneQuarterHours = timeZoneQuarterHours
        configuration.historyCapacity = Self.historyCapacity
        configuration.deviceName = Self.deviceName
        var idRandom = Xoshiro256StarStar(seed: seed).fork(1)
        let flash = FlashImage(historyID: UInt32(truncatingIfNeeded: idRandom.next()), capacity: Self.historyCapacity)
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
        return true
    }

    /// Link messages 0x02/0x03: a reader connected (ATT starts fresh, MTU 23) or left.
    public mutating func linkChanged<B: Board>(connected: Bool, board: inout B) {
        guard let services else { return }
        services.disconnect(.host)
        services.host.linkClosedByBand = false
        if connected { services.connect(mtu: ATT.defaultLEMTU) }
        services.host.flush(to: &board)
    }

    public mutating func poll<B: Board>(board: inout B) {
        guard let services else { return }
        let now = startTime + .milliseconds(Int64(truncatingIfNeeded: board.uptimeMilliseconds() &- startUptime))
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
            }
            services.host.flush(to: &board)
            ticks += 1
        }
        services.continueTransfer()
        services.host.flush(to: &board)
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
