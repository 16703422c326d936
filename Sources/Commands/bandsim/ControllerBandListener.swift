#if canImport(Glibc)
import Glibc
#endif
import BandControllerLink
import BandFirmware
import BandLink

/// `bandsim serve --hci-controller`: readers arrive through a standard controller driven by
/// the band's own host (``ControllerLink``, which the band's loop drives beside it). A pipe
/// turns readable when a link came up or the controller link stopped.
final class ControllerBandListener: BandListener {
    let link: ControllerLink
    private let wakeup: Int32
    private let signal: Int32

    init(link: ControllerLink, log: @escaping (String) -> Void) throws(LinkError) {
        var ends: (Int32, Int32) = (-1, -1)
        let made = withUnsafeMutableBytes(of: &ends) { pipe($0.baseAddress!.assumingMemoryBound(to: Int32.self)) }
        guard made == 0 else { throw .system(call: "pipe", errno: errno) }
        for fd in [ends.0, ends.1] {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        self.link = link
        wakeup = ends.0
        signal = ends.1
        link.onNote = { [signal] note in
            switch note {
            case .ready: break
            case .connected(let peer):
                log("controller: central \(peer) connected")
                var one: UInt8 = 1
                _ = write(signal, &one, 1)
            case .disconnected(let reason): log("controller: link ended (\(reason))")
            case .passkey(let passkey):
                let digits = String(passkey)
                log("passkey \(String(repeating: "0", count: max(0, 6 - digits.count)) + digits): enter it on the central")
            case .log(let line): log("controller: \(line)")
            case .failed:
                var one: UInt8 = 1
                _ = write(signal, &one, 1)
            }
        }
    }

    var pollDescriptor: Int32 { wakeup }

    func acceptLink() throws(LinkError) -> (any ATTBearer)? {
        var drained = (UInt64(0), UInt64(0))
        _ = read(wakeup, &drained, 16)
        // The command reads `link.failure` to say why.
        if link.failure != nil { throw .closed }
        return link.takeBandSide()
    }

    func connectionEnded() {}

    func close() {
        Glibc.close(wakeup)
        Glibc.close(signal)
    }
}
