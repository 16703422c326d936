#if canImport(Glibc)
import Glibc
#endif
import BandKitSystem
import BandLEHost

/// The host's outside world on Linux: H4 packets written to the controller's descriptor,
/// events and ATT PDUs collected for ``ControllerLink`` to act on once the host call returns
/// (the host is busy during the call, so nothing may reach back into it).
struct ControllerLinkIO: LEHostIO {
    let descriptor: Int32
    var bonds: BondFile
    var events: [LEHostEvent<Never>] = []
    var attPDUs: [[UInt8]] = []
    /// The first write that failed: the controller is gone.
    var writeError: Errno?

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
        // The table is empty and ATT is served outside, so no event carries a write effect.
        if let event = event as? LEHostEvent<Never> { events.append(event) }
    }

    mutating func serveATT(_ pdu: UnsafeRawBufferPointer) -> Bool {
        attPDUs.append(Array(pdu))
        return true
    }
}
