import BandATT
import BandKitSystem
import BandGATT
import BandLink
import BandProtocol
import BandWire

/// A simulated band: sensors, flash, clock and a GATT server on one ATT bearer at a time — the
/// Linux shell around the band's services (BandFirmwareCore's `BandServices`, the same code the
/// chip's image runs), with the bearer, the kernel's CSPRNG and log lines as its host.
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
/// The packet path allocates nothing: PDUs are received into a buffer made once here and built
/// in the services' own.
public final class SimulatedBand {
    let services: BandServices<BearerHost>
    public var configuration: BandConfiguration { services.configuration }
    public var trueTime: BandInstant { services.trueTime }
    let receiveBuffer: UnsafeMutableRawBufferPointer
    /// True once a pairing prompt is out and no answer has come yet (for `--confirm ask`).
    public var pairingPromptPending: Bool { services.pairingPromptPending }

    /// Each minute record as it is written to flash: `--truth` listens here.
    public var onMinuteRecorded: ((UInt32, MinuteRecord) -> Void)? {
        get { services.host.onMinuteRecorded }
        set { services.host.onMinuteRecorded = newValue }
    }
    /// Human-readable events (pairing, wrong proofs, faults, reboots).
    public var log: (String) -> Void {
        get { services.host.log }
        set { services.host.log = newValue }
    }
    /// Asked when a pairing needs the wearer's answer under `--confirm ask`; answer later with
    /// ``answerPairing(_:)``.
    public var onPairingPrompt: ((UInt64) -> Void)? {
        get { services.host.onPairingPrompt }
        set { services.host.onPairingPrompt = newValue }
    }
    /// Flash changed in a way worth persisting (keys, acknowledgement, boot).
    public var onFlashChanged: (() -> Void)? {
        get { services.host.onFlashChanged }
        set { services.host.onFlashChanged = newValue }
    }

    /// The ATT_MTU the band offers: the largest worth negotiating.
    public static let serverMTU = ATT.maximumMTU

    /// Boots a band. `flash` is the state restored from `--state` (nil: freshly formatted).
    public init(configuration: BandConfiguration, flash: FlashImage? = nil) throws(RandomSourceError) {
        var image: FlashImage
        if let flash {
            image = flash
        } else {
            var idRandom = Xoshiro256StarStar(seed: configuration.seed).fork(1)
            let historyID = configuration.deterministicSecrets
                ? UInt32(truncatingIfNeeded: idRandom.next())
                : try Self.secureUInt32()
            image = FlashImage(historyID: historyID, capacity: configuration.historyCapacity)
        }
        services = BandServices(configuration: configuration, flash: image, formatted: flash == nil,
                                serverMTU: Self.serverMTU, host: BearerHost())
        receiveBuffer = .allocate(byteCount: ATT.maximumMTU, alignment: 8)
    }

    deinit {
        receiveBuffer.deallocate()
    }

    /// The records simulated before `start` (`BandConfiguration/historyDays`) were produced
    /// inside `init`, before anyone could listen; this replays them from flash for `--truth`.
    public func replayStoredRecords(_ body: (UInt32, MinuteRecord) -> Void) {
        services.forEachStoredRecord(body)
    }

    // MARK: State

    public var flash: FlashImage { services.flash }
    public var bootEpoch: UInt16 { services.bootEpoch }
    public var clock: BandClock { services.clock }
    public var isConnected: Bool { services.isConnected }
    /// The connection's descriptor for an event loop's `poll()` (nil without a connection or for in-memory links).
    public var connectionDescriptor: Int32? { services.isConnected ? services.host.bearer?.pollDescriptor : nil }
    public var liveActivity: LiveActivity { services.liveActivity }
    public var batteryLevel: UInt8 { services.batteryLevel }
    /// The true time of the next sensor tick (for an event loop's poll deadline).
    public var nextDeadline: BandInstant { services.nextDeadline }
    /// A history transfer is sending: the event loop should come back as soon as the link has room.
    public var hasPendingWork: Bool { services.hasPendingWork }

    // MARK: Connections

    /// Takes `bearer` as the connection (replacing any current one, which is dropped).
    public func connect(_ bearer: any ATTBearer) {
        if services.isConnected { disconnect(reason: "replaced by a new connection") }
        services.host.attach(bearer)
        services.connect(mtu: bearer.mtu)
    }

    /// Drops the connection (a radio link loss, a fault, or a reboot).
    public func disconnect(reason: String) {
        services.host.hostReason = reason
        services.disconnect(.host)
    }

    /// Handles every PDU already waiting on the connection (never blocks), then sends the next
    /// burst of an ongoing history transfer.
    public func pump() {
        while services.isConnected, let bearer = services.host.bearer {
            let received: Int?
            do throws(LinkError) {
                received = try bearer.receive(into: receiveBuffer, timeout: .zero)
            } catch {
                if case .pduTooLarge(let size, _) = error {
                    log("connection \(services.connectionNumber): ignored a \(size)-byte PDU larger than any ATT_MTU")
                    continue
                }
                disconnect(reason: error == .closed ? "reader hung up" : "\(error)")
                return
            }
            guard let length = received else { break }
            services.handlePDU(UnsafeRawBufferPointer(rebasing: receiveBuffer[0..<length]))
        }
        services.continueTransfer()
    }

    /// The wearer's answer to the pending pairing (from `--confirm`, or the terminal under `ask`).
    public func answerPairing(_ accepted: Bool) { services.answerPairing(accepted) }

    // MARK: Time

    /// Runs the band up to true time `target`: every whole second in between is one sensor
    /// tick, with its notifications; scheduled faults fire on the way.
    public func advance(to target: BandInstant) { services.advance(to: target) }

    public func advance(by duration: Duration) { services.advance(by: duration) }

    /// A reboot: counters reset, boot epoch +1, the minute in progress is lost, flash is kept,
    /// and the radio drops the connection.
    public func reboot() { services.reboot() }

    private static func secureUInt32() throws(RandomSourceError) -> UInt32 {
        let bytes = try KernelRandom.bytes(count: 4)
        return bytes.reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }
}
