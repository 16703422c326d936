import BandProtocol
import BandWire
import ChipRuntime
import FirmwareCrypto
import UARTFraming

/// The chip's host of the band's services (``BandServices``): every PDU they send becomes a UART
/// frame on the ATT channel, every minute they record a debug message 0x87 (the firmware's
/// truth), both into a fixed outbox that ``ChipBand`` hands to the board after each step (the
/// services never see the board: it is passed `inout` per call, not stored). Secrets come from
/// an HMAC_DRBG (FirmwareCrypto) instantiated from the host's seed at start-up.
///
/// The outbox is the chip's "radio buffers": when less than ``reservedBytes`` is free,
/// ``canSendWithoutBlocking()`` says no, so notifications are dropped and history packets wait
/// for the next poll, and a response or indication always finds room.
public struct ChipLinkHost: BandServiceHost {
    /// Bytes of UART frames waiting for the board.
    public static let outboxCapacity = 1_024
    /// Room kept for two whole frames of the chip's ATT_MTU (a response and an indication).
    static let reservedBytes = 2 * (UARTFrame.headerByteCount + ChipBand.serverMTU + UARTFrame.trailerByteCount)

    private let outbox: UnsafeMutableRawBufferPointer
    private(set) var outboxCount = 0
    private var drbg: HMACDRBG?
    /// What the services reported, counted (the chip has no log lines to spare).
    public private(set) var records: UInt32 = 0
    /// The sequence number of the last minute recorded (ChipBand programs it into flash).
    public private(set) var lastRecordedSequence: UInt32 = 0
    public private(set) var droppedFrames: UInt32 = 0
    public private(set) var events: UInt32 = 0
    public internal(set) var linkClosedByBand = false
    /// The connection the reader has now: the count of link messages 0x02 since boot (ChipBand
    /// sets it), which a 0x89 names so the host never closes a newer link for an older drop.
    public internal(set) var linkNumber: UInt32 = 0
    /// A 0x89 the band owes the host (its reason code): sent by ``flush(to:)`` after the frames
    /// before it, outside the outbox so a full outbox cannot lose it.
    private var linkDropOwed: UInt8?
    public private(set) var linkDropsSent: UInt32 = 0
    public private(set) var flashChanges: UInt32 = 0

    /// Start-up only: allocates the outbox and instantiates the DRBG from `entropy`/`nonce`.
    package init(entropy: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer) {
        outbox = .allocate(byteCount: Self.outboxCapacity, alignment: 4)
        drbg = try? HMACDRBG(entropy: entropy, nonce: nonce)
    }

    /// Hands the frames out to `board` and empties the outbox.
    package mutating func flush<B: Board>(to board: inout B) {
        if outboxCount > 0 {
            board.transmit(UnsafeRawBufferPointer(rebasing: outbox[0..<outboxCount]))
            outboxCount = 0
        }
        if let reason = linkDropOwed {
            linkDropOwed = nil
            linkDropsSent &+= 1
            var body = InlineArray<5, UInt8>(repeating: reason)   // LinkMessage.linkDroppedByteCount
            for byte in 0..<4 { body[byte] = UInt8(truncatingIfNeeded: linkNumber >> UInt32(8 * byte)) }
            var span = body.mutableSpan
            span.withUnsafeMutableBytes { FirmwareOutput.send(.link, code: LinkMessage.linkDropped, UnsafeRawBufferPointer($0), on: &board) }
        }
    }

    /// Frames `payload` on `channel` into the outbox; false when it does not fit.
    private mutating func enqueue(_ channel: UARTChannel, _ payload: UnsafeRawBufferPointer) -> Bool {
        let free = UnsafeMutableRawBufferPointer(rebasing: outbox[outboxCount...])
        guard let written = UARTFrame.encode(channel: channel, payload: payload, into: free) else {
            droppedFrames &+= 1
            return false
        }
        outboxCount += written
        return true
    }

    public mutating func send(_ pdu: UnsafeRawBufferPointer) -> Bool { enqueue(.att, pdu) }

    public mutating func canSendWithoutBlocking() -> Bool {
        !transportBusy && Self.outboxCapacity - outboxCount >= Self.reservedBytes
    }

    /// Set by a runtime whose frames leave through something slower than a UART (the hosted
    /// image's Bluetooth host, ``HostedBand``): true while that has no room, so the band treats it
    /// as its own full outbox.
    public internal(set) var transportBusy = false

    /// The bridge follows the Exchange MTU itself (it sees both PDUs).
    public mutating func linkMTUChanged(_ mtu: Int) {}

    /// The chip cannot close the reader's link itself (the bridge holds it): it stops answering
    /// until the next connect message, and — when the band dropped the link for a reason of its
    /// own (``report(_:)``) — tells the host with link message 0x89, which closes it.
    public mutating func closeLink() { linkClosedByBand = true }

    public mutating func fillSecret(_ buffer: UnsafeMutableRawBufferPointer) -> Bool {
        guard drbg != nil else { return false }
        do throws(HMACDRBG.Failure) {
            try drbg!.generate(into: buffer)
            return true
        } catch {
            return false
        }
    }

    /// Debug message 0x87: the sequence number (UInt32 LE) and the record's 16 bytes as stored.
    public mutating func minuteRecorded(_ sequence: UInt32, _ record: MinuteRecord) {
        records &+= 1
        lastRecordedSequence = sequence
        var body = InlineArray<21, UInt8>(repeating: 0)
        body[0] = LinkMessage.minuteRecorded
        for byte in 0..<4 { body[1 + byte] = UInt8(truncatingIfNeeded: sequence >> UInt32(8 * byte)) }
        var span = body.mutableSpan
        span.withUnsafeMutableBytes { raw in
            var writer = ByteWriter(UnsafeMutableRawBufferPointer(rebasing: raw[5...]))
            record.encode(into: &writer)
            _ = enqueue(.debug, UnsafeRawBufferPointer(raw))
        }
    }

    public mutating func flashChanged() { flashChanges &+= 1 }
    /// The chip's band confirms pairings itself (``PairingConfirmation/auto``): never asked.
    public mutating func pairingPrompt(readerID: UInt64) {}
    public mutating func report(_ event: BandServiceEvent) {
        events &+= 1
        if case .disconnected(_, let reason) = event, let code = Self.linkDropReason(reason) { linkDropOwed = code }
    }

    /// Link message 0x89's reason code for a drop the band decided; nil for the host's own
    /// (0x02/0x03: it knows) — the connection then ended on the host's word.
    static func linkDropReason(_ reason: BandDisconnectReason) -> UInt8? {
        switch reason {
        case .host, .replaced: return nil
        case .indicationOverflow: return 1
        case .noEntropy: return 2
        case .sendFailed: return 3
        case .faultRandom, .faultAt, .faultMidHistory: return 4
        case .rebooted: return 5
        }
    }
}
