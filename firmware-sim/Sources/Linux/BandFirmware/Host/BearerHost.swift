import BandKitSystem
import BandLink
import BandProtocol
import BandWire

/// The Linux host of the band's services (``BandServices``): the ATT bearer of the connection
/// (a socket or HCI link), the kernel's CSPRNG, and the log lines, truth and flash callbacks
/// `SimulatedBand` exposes.
struct BearerHost: BandServiceHost {
    var bearer: (any ATTBearer)?
    private var writability = Poller()
    /// Why the last send failed, the last CSPRNG failure, and the reason of a disconnect the
    /// shell asked for: words for the events that carry none.
    var lastSendError: LinkError?
    var lastRandomError: RandomSourceError?
    var hostReason = ""

    var log: (String) -> Void = { _ in }
    var onMinuteRecorded: ((UInt32, MinuteRecord) -> Void)?
    var onPairingPrompt: ((UInt64) -> Void)?
    var onFlashChanged: (() -> Void)?

    /// Takes `bearer` as the link of the next connection.
    mutating func attach(_ bearer: any ATTBearer) {
        self.bearer = bearer
        writability = Poller()
        if let descriptor = bearer.pollDescriptor { writability.watch(descriptor, for: .writable) }
    }

    mutating func send(_ pdu: UnsafeRawBufferPointer) -> Bool {
        guard let bearer else { return false }
        do throws(LinkError) {
            try bearer.send(pdu)
            return true
        } catch {
            lastSendError = error
            return false
        }
    }

    /// Like a radio's few transmit buffers, a full socket means "not now": notifications are
    /// dropped and history packets wait, instead of stalling the band's one loop behind a reader
    /// that stopped reading.
    mutating func canSendWithoutBlocking() -> Bool {
        guard let descriptor = bearer?.pollDescriptor else { return true }
        guard (try? writability.wait(timeout: .zero)) != nil else { return true }
        return writability.readiness(of: descriptor).contains(.writable)
    }

    mutating func linkMTUChanged(_ mtu: Int) { bearer?.mtu = mtu }

    mutating func closeLink() {
        bearer?.close()
        bearer = nil
    }

    mutating func fillSecret(_ buffer: UnsafeMutableRawBufferPointer) -> Bool {
        do throws(RandomSourceError) {
            try KernelRandom.fill(buffer)
            return true
        } catch {
            lastRandomError = error
            return false
        }
    }

    mutating func minuteRecorded(_ sequence: UInt32, _ record: MinuteRecord) { onMinuteRecorded?(sequence, record) }
    mutating func flashChanged() { onFlashChanged?() }
    mutating func pairingPrompt(readerID: UInt64) { onPairingPrompt?(readerID) }
    mutating func report(_ event: BandServiceEvent) { log(text(of: event)) }

    /// The log line of `event`.
    func text(of event: BandServiceEvent) -> String {
        switch event {
        case .connected(let number): "connection \(number): connected"
        case .transferInterrupted(let number, let sent, let count):
            "connection \(number): history transfer interrupted after \(sent) of \(count) records"
        case .disconnected(let number, let reason): "connection \(number): disconnected (\(text(of: reason)))"
        case .rebooted(let epoch): "band rebooted: boot epoch \(epoch)"
        case .oversizePDUDropped(let number, let mtu, let error):
            "connection \(number): dropped an outgoing PDU that does not fit ATT_MTU \(mtu): \(error)"
        case .congested(let number, let drops): "connection \(number): link congested, \(drops) notification(s) dropped so far"
        case .indicationQueueFull(let number): "connection \(number): indication queue full, dropping the connection"
        case .pairingRequested(let number, let reader): "connection \(number): reader \(Self.hex(reader)) asks to pair"
        case .challengeFromUnknownReader(let number, let reader):
            "connection \(number): challenge requested by unknown reader \(Self.hex(reader))"
        case .noEntropy(let number, let forKey):
            "connection \(number): cannot draw a \(forKey ? "key" : "challenge"): \(lastRandomError.map { "\($0)" } ?? "no entropy")"
        case .wrongProof(let number, let reader, let count, let limit):
            "connection \(number): WRONG PROOF from reader \(Self.hex(reader)) (\(count) of \(limit)); refused"
        case .authenticated(let number, let reader): "connection \(number): reader \(Self.hex(reader)) authenticated"
        case .pairingDenied(let number, let reader): "connection \(number): pairing with reader \(Self.hex(reader)) denied"
        case .paired(let number, let reader): "connection \(number): paired with reader \(Self.hex(reader)); key stored"
        case .pairingTimedOut(let number, let reader): "connection \(number): pairing with reader \(Self.hex(reader)) timed out"
        case .fetchAhead(let number, let cursor, let next):
            "connection \(number): fetch from \(cursor) is ahead of this history (next is \(next))"
        case .fetchGap(let number, let cursor, let gap): "connection \(number): fetch from \(cursor): \(gap) records no longer stored"
        case .acknowledged(let number, let end, let erased, let keptFrom):
            "connection \(number): acknowledged through \(end); erased \(erased) records (kept from \(keptFrom) for readers still behind)"
        case .acknowledgementRefused(let number, let end, let crc):
            "connection \(number): refused acknowledgement of \(end) (crc \(String(crc, radix: 16))): no such completed transfer on this connection"
        case .overwrittenDuringTransfer(let number, let from):
            "connection \(number): records from \(from) were overwritten during the transfer; aborting it"
        case .clockSet(let instant, let local, let offset): "clock set to \(instant) (local \(local.dateTime), offset \(offset))"
        case .timeZoneSet(let information):
            "time zone set to \(LocalTimeOffset(quarterHours: information.timeZone)) + DST \(information.dstOffset.seconds.map { "\($0 / 60) min" } ?? "unknown")"
        case .batteryLow(let level): "battery low: \(level) %"
        }
    }

    func text(of reason: BandDisconnectReason) -> String {
        switch reason {
        case .replaced: "replaced by a new connection"
        case .sendFailed: "send failed: \(lastSendError.map { "\($0)" } ?? "unknown")"
        case .faultRandom: "fault disconnect-random"
        case .faultAt: "fault disconnect-at"
        case .faultMidHistory(let packets): "fault disconnect-mid-history after \(packets) packets"
        case .indicationOverflow: "indication queue overflow"
        case .noEntropy: "CSPRNG failure"
        case .rebooted: "band rebooted"
        case .host: hostReason
        }
    }

    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
