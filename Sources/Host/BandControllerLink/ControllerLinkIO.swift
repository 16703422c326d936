#if canImport(Glibc)
import Glibc
#endif
import BandKitSystem
import BandLEHost

/// The host's outside world on Linux: H4 packets written to the controller's descriptor,
/// events and ATT PDUs collected for ``ControllerLink`` to act on once the host call returns
/// (the host is busy during the call, so nothing may reach back into it).
///
/// Nothing is allocated per PDU or per event: the PDUs are copied one after another into
/// `pduBytes`, a buffer the link owns that holds everything one host call can deliver, and the
/// event list keeps its capacity.
struct ControllerLinkIO: LEHostIO {
    let descriptor: Int32
    var bonds: BondFile
    var events: [LEHostEvent<Never>] = []
    /// Where the ATT PDUs of the current host call are kept, back to back.
    let pduBytes: UnsafeMutableRawBufferPointer
    /// Each PDU's place in ``pduBytes``, in arrival order.
    var pduRanges: [Range<Int>] = []
    /// PDUs that did not fit ``pduBytes`` (never expected: it holds a whole read's worth).
    var overflowedPDUs = 0
    /// The first write that failed: the controller is gone.
    var writeError: Errno?

    init(descriptor: Int32, bonds: BondFile, pduBytes: UnsafeMutableRawBufferPointer) {
        self.descriptor = descriptor
        self.bonds = bonds
        self.pduBytes = pduBytes
        events.reserveCapacity(16)
        pduRanges.reserveCapacity(256)
    }

    /// The PDU at `range`, valid until the next host call.
    func pdu(_ range: Range<Int>) -> UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: pduBytes[range]) }

    mutating func transmit(_ h4Packet: UnsafeRawBufferPointer) {
        guard writeError == nil, var base = h4Packet.baseAddress else { return }
        var remaining = h4Packet.count
        while remaining > 0 {
            switch valueOrErrno({ write(descriptor, base, remaining) }) {
            case .success(let written):
                remaining -= written
                base += written
            case .failure(let error):
                writeError = error
                return
            }
        }
    }

    mutating func report<WriteEffect>(_ event: LEHostEvent<WriteEffect>) {
        if let event = event.withoutGATT { events.append(event) }
    }

    mutating func serveATT(_ pdu: UnsafeRawBufferPointer) -> Bool {
        let start = pduRanges.last?.upperBound ?? 0
        guard pdu.count <= pduBytes.count - start else {
            overflowedPDUs += 1
            return true
        }
        if let source = pdu.baseAddress { (pduBytes.baseAddress! + start).copyMemory(from: source, byteCount: pdu.count) }
        pduRanges.append(start..<start + pdu.count)
        return true
    }
}

extension LEHostEvent {
    /// The event for an owner that serves ATT itself (its host's table is empty, so no GATT
    /// event, the only one carrying a write effect, can come): nil for a GATT event.
    var withoutGATT: LEHostEvent<Never>? {
        switch self {
        case .ready(let info): .ready(info)
        case .failed(let error): .failed(error)
        case .controllerError(let error): .controllerError(error)
        case .advertising: .advertising
        case .connected(let handle, let peer, let interval, let latency, let timeout):
            .connected(handle: handle, peer: peer, interval: interval, latency: latency, supervisionTimeout: timeout)
        case .disconnected(let handle, let reason): .disconnected(handle: handle, reason: reason)
        case .mtuChanged(let mtu): .mtuChanged(mtu)
        case .dataLengthChanged(let transmit, let receive): .dataLengthChanged(transmitOctets: transmit, receiveOctets: receive)
        case .gatt: nil
        case .connectionParametersAnswered(let accepted): .connectionParametersAnswered(accepted: accepted)
        case .dropped(let drop): .dropped(drop)
        case .displayPasskey(let passkey): .displayPasskey(passkey)
        case .pairingFailed(let failure): .pairingFailed(failure)
        case .pairingThrottled(let wait): .pairingThrottled(retryAfterMilliseconds: wait)
        case .encrypted(let handle): .encrypted(handle: handle)
        case .bonded(let bond, let saved): .bonded(bond, saved: saved)
        }
    }
}
