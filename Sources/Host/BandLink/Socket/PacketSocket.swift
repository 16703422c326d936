#if canImport(Glibc)
import Glibc
#endif
import BandKitSystem

/// A connected `SOCK_SEQPACKET` socket carrying whole datagrams: the shared engine of
/// ``SeqPacketLink`` (Unix) and BandBlueZ's L2CAP ATT link.
///
/// - Every wait is a `poll()` with a timeout; the descriptor itself may stay blocking
///   because reads and writes pass `MSG_DONTWAIT`.
/// - Receives pass `MSG_TRUNC`, so the kernel returns the datagram's real length: one
///   longer than the buffer is reported as ``LinkError/pduTooLarge(size:limit:)`` (and is
///   discarded, as a datagram socket must), never silently cut.
/// - A hang-up (end of file, `EPIPE`, `ECONNRESET`, an L2CAP link loss, or `POLLHUP` with
///   nothing left to read) is ``LinkError/closed``; the errno behind it, if any, is kept in
///   ``closeReason``.
package final class PacketSocket {
    package private(set) var descriptor: Int32
    package let system: SystemCalls
    /// Why the link ended, when the kernel said (nil after an orderly end of file or a local close).
    package private(set) var closeReason: Errno?

    package init(adopting descriptor: Int32, system: SystemCalls) {
        self.descriptor = descriptor
        self.system = system
    }

    package var isOpen: Bool { descriptor >= 0 }

    /// Sends one datagram, waiting up to `timeout` for room in the socket buffer; returns the
    /// bytes the kernel took. A short count is an error unless `acceptsShortSend`: the BlueZ
    /// management channel answers a command it refuses (a controller index that no longer
    /// exists) with a status event and a `sendmsg` result of 0, which its caller must read.
    @discardableResult
    package func send(_ bytes: UnsafeRawBufferPointer, timeout: Duration?, acceptsShortSend: Bool = false) throws(LinkError) -> Int {
        guard isOpen else { throw .closed }
        let deadline = timeout.map { ContinuousClock.now.advanced(by: $0) }
        while true {
            switch system.send(descriptor, bytes, flags: SocketFlags.dontWait | SocketFlags.noSignal) {
            case .success(let sent):
                // A SOCK_SEQPACKET send is all or nothing; anything else is a kernel contract breach.
                guard sent == bytes.count || acceptsShortSend else { throw .system("send", .messageTooLong) }
                return sent
            case .failure(.wouldBlock):
                var entry = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                let remaining = deadline.map { max(.zero, $0 - ContinuousClock.now) }
                switch system.pollOne(&entry, timeout: remaining) {
                case .success(0): throw .system("send", .timedOut)
                case .success: continue
                case .failure(let error): throw .system("poll", error)
                }
            case .failure(let error) where error.meansLinkEnded:
                closeReason = closeReason ?? error   // the first says why; a later ENOTCONN only repeats it
                throw .closed
            case .failure(.messageTooLong):
                throw .pduTooLarge(size: bytes.count, limit: bytes.count - 1)
            case .failure(let error):
                throw .system("send", error)
            }
        }
    }

    /// Waits up to `timeout` (nil: forever) for one datagram; returns its length, nil on timeout.
    package func receive(into buffer: UnsafeMutableRawBufferPointer, timeout: Duration?) throws(LinkError) -> Int? {
        guard isOpen else { throw .closed }
        let deadline = timeout.map { ContinuousClock.now.advanced(by: $0) }
        while true {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN) | SocketFlags.pollReadHangUp, revents: 0)
            let remaining = deadline.map { max(.zero, $0 - ContinuousClock.now) }
            switch system.pollOne(&entry, timeout: remaining) {
            case .success(0): return nil
            case .success: break
            case .failure(let error): throw .system("poll", error)
            }
            if entry.revents & Int16(POLLNVAL) != 0 { throw .system("poll", .badFileDescriptor) }

            switch system.receive(descriptor, into: buffer, flags: SocketFlags.messageTruncated | SocketFlags.dontWait) {
            case .success(let length) where length > buffer.count:
                throw .pduTooLarge(size: length, limit: buffer.count)
            case .success(0) where hasHungUp():
                throw .closed
            case .success(let length):
                // Zero here is an empty datagram, not end of file: the socket has not hung up.
                return length
            case .failure(.wouldBlock) where PollEvents(rawValue: entry.revents).contains(.hangUp):
                // Nothing queued and the socket hung up: the end. An L2CAP socket whose link went
                // down reports its error once; if a send took it, every later poll says hang-up
                // and every recv EAGAIN, so retrying would spin here for ever.
                throw .closed
            case .failure(.wouldBlock):
                continue  // readiness was spurious (another reader, or a checksum drop)
            case .failure(let error) where error.meansLinkEnded:
                closeReason = closeReason ?? error
                throw .closed
            case .failure(let error):
                throw .system("recv", error)
            }
        }
    }

    /// A zero-length read is end of file only if the socket also reports a hang-up now.
    private func hasHungUp() -> Bool {
        var entry = pollfd(fd: descriptor, events: SocketFlags.pollReadHangUp, revents: 0)
        guard case .success = system.pollOne(&entry, timeout: .zero) else { return true }
        return PollEvents(rawValue: entry.revents).intersection(.endOfStream).isEmpty == false
    }

    /// Closes the descriptor. Idempotent.
    package func close() {
        guard isOpen else { return }
        _ = system.close(descriptor: descriptor)
        descriptor = -1
    }

    deinit { close() }
}

extension Errno {
    /// Errors that mean the connection is gone: the peer hung up, or (L2CAP) the radio link
    /// was lost or torn down (`ETIMEDOUT` supervision timeout, `EHOSTDOWN`, `ECONNABORTED`).
    var meansLinkEnded: Bool {
        meansPeerHungUp || self == .timedOut || self == .hostDown
    }
}
