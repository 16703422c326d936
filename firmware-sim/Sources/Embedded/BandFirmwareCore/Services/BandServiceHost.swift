import BandGATT
import BandProtocol
import BandWire

/// What the band's GATT services (``BandServices``) need from the platform they run on, and
/// nothing more: one ATT link, a secret source, and somewhere to report. Two hosts implement it —
/// BandFirmware's bearer host on Linux (a socket or HCI `ATTBearer`, the kernel's CSPRNG, log
/// lines on stderr) and ``ChipBand``'s UART host on the microcontroller (frames to the bridge,
/// the HMAC_DRBG, truth over the debug channel). Generic, not an existential, so the services
/// compile with Embedded Swift.
public protocol BandServiceHost {
    /// Sends one ATT PDU on the link. False: the link failed (the services drop the connection
    /// with ``BandDisconnectReason/sendFailed``; the host knows why).
    mutating func send(_ pdu: UnsafeRawBufferPointer) -> Bool
    /// True when a PDU can go out now without blocking (a radio's few transmit buffers: when
    /// they are full, notifications are dropped and history packets wait).
    mutating func canSendWithoutBlocking() -> Bool
    /// The client and the band agreed on a new ATT_MTU.
    mutating func linkMTUChanged(_ mtu: Int)
    /// The connection ended on the band's side: close the link.
    mutating func closeLink()
    /// Fills `buffer` with secret bytes (pairing keys, challenges). False: no entropy (the
    /// services drop the connection rather than use a guessable secret).
    mutating func fillSecret(_ buffer: UnsafeMutableRawBufferPointer) -> Bool
    /// A minute record was written to the ring (the firmware's truth).
    mutating func minuteRecorded(_ sequence: UInt32, _ record: MinuteRecord)
    /// Flash changed in a way worth persisting (keys, acknowledgement, boot, battery).
    mutating func flashChanged()
    /// A pairing waits for the wearer's answer (``PairingConfirmation/ask``); answer with
    /// ``BandServices/answerPairing(_:)``.
    mutating func pairingPrompt(readerID: UInt64)
    /// Something worth a log line happened. The host words it (Linux) or counts it (the chip):
    /// the services never build text, so nothing allocates on the packet path.
    mutating func report(_ event: BandServiceEvent)
}

/// Why the band dropped a connection.
public enum BandDisconnectReason: Equatable, Sendable {
    case replaced
    /// The host's send failed (the host words its error).
    case sendFailed
    /// Fault `disconnect-random` fired after a send.
    case faultRandom
    case faultAt
    case faultMidHistory(packets: UInt32)
    case indicationOverflow
    case noEntropy
    case rebooted
    /// The host ended it for a reason of its own (the reader hung up, a test ended).
    case host
}

/// What the band's services report, in the order it happens (``BandServiceHost/report(_:)``).
public enum BandServiceEvent {
    case connected(connection: Int)
    case transferInterrupted(connection: Int, sent: UInt32, count: UInt32)
    case disconnected(connection: Int, reason: BandDisconnectReason)
    case rebooted(bootEpoch: UInt16)
    /// A PDU the band built does not fit the connection's ATT_MTU; not sent.
    case oversizePDUDropped(connection: Int, mtu: Int, error: EncodeError)
    case congested(connection: Int, drops: Int)
    case indicationQueueFull(connection: Int)
    case pairingRequested(connection: Int, reader: UInt64)
    case challengeFromUnknownReader(connection: Int, reader: UInt64)
    /// No secret bytes for a challenge (`forKey` false) or a pairing key (true).
    case noEntropy(connection: Int, forKey: Bool)
    case wrongProof(connection: Int, reader: UInt64, count: Int, limit: Int)
    case authenticated(connection: Int, reader: UInt64)
    case pairingDenied(connection: Int, reader: UInt64)
    case paired(connection: Int, reader: UInt64)
    case pairingTimedOut(connection: Int, reader: UInt64)
    case fetchAhead(connection: Int, cursor: UInt32, next: UInt32)
    case fetchGap(connection: Int, cursor: UInt32, gap: UInt32)
    case acknowledged(connection: Int, end: UInt32, erased: UInt32, keptFrom: UInt32)
    case acknowledgementRefused(connection: Int, end: UInt32, crc: UInt32)
    case overwrittenDuringTransfer(connection: Int, from: UInt32)
    /// The reader set the clock: the new UTC instant, the local time it wrote, the offset now.
    case clockSet(instant: BandInstant, local: CurrentTime, offset: LocalTimeOffset)
    case timeZoneSet(LocalTimeInformation)
    case batteryLow(level: UInt8)
}
