import BandKitSystem
internal import CMicroHTTPD
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The server's front door: one thread that accepts connections, waits (without consuming) for a
/// whole request head within ``HTTPServer/Limits/headerTimeoutSeconds``, judges it with
/// ``RequestGate`` and hands good ones to libmicrohttpd (`MHD_add_connection`). Everything else it
/// answers itself: a full server 503 with `Retry-After` (the library would close without a byte),
/// a head that does not come in time 408, a bad one its 4xx. A connection waiting for its head
/// costs a socket and a poll slot, not a thread, and counts toward the connection limit.
final class Acceptor: @unchecked Sendable {
    private struct Waiting {
        let descriptor: Int32
        let address: sockaddr_storage
        let length: socklen_t
        let deadline: timespec
    }

    private let listener: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let gate: RequestGate
    private let limits: HTTPServer.Limits
    private let daemon: OpaquePointer
    /// Counts the connections the library holds now (its notification callback).
    private let context: HTTPServer.Context
    private var waiting: [Waiting] = []
    /// Answered connections, still read (and discarded) for a moment so that closing them with
    /// unread bytes does not reset the connection before the client has read the answer.
    private var closing: [(descriptor: Int32, deadline: timespec)] = []
    private var thread: pthread_t?

    init(listener: Int32, gate: RequestGate, limits: HTTPServer.Limits, daemon: OpaquePointer, context: HTTPServer.Context) throws(HTTPServerError) {
        var pipeEnds: [Int32] = [-1, -1]
        guard bandkit_pipe(&pipeEnds) == 0 else { throw .cannotListen(host: "", port: 0, reason: String(cString: strerror(errno))) }
        self.listener = listener
        wakeRead = pipeEnds[0]
        wakeWrite = pipeEnds[1]
        self.gate = gate
        self.limits = limits
        self.daemon = daemon
        self.context = context
    }

    func start() {
        var made = pthread_t()
        let box = Unmanaged.passRetained(self)
        pthread_create(&made, nil, { raw in
            let acceptor = Unmanaged<Acceptor>.fromOpaque(raw!).takeRetainedValue()
            acceptor.run()
            return nil
        }, box.toOpaque())
        thread = made
    }

    /// Ends the loop, closes every connection not handed over and the listening socket.
    func stop() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        if let thread { pthread_join(thread, nil) }
        thread = nil
        close(wakeRead)
        close(wakeWrite)
    }

    private func run() {
        var buffer = [UInt8](repeating: 0, count: gate.maximumHeadBytes + 4)
        while true {
            var entries = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0), pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
            entries += waiting.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
            entries += closing.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
            // Not retried here: an interrupted wait goes round the loop, which recomputes the timeout.
            let waited = valueOrErrno(retryOnInterrupt: false) { poll(&entries, nfds_t(entries.count), nextTimeout()) }
            if case .failure(let error) = waited, error != .interrupted { break }
            if entries[0].revents != 0 { break }
            let now = Self.now()
            // Closing connections: read what came, close at end-of-file or the deadline.
            var stillClosing: [(descriptor: Int32, deadline: timespec)] = []
            for (index, entry) in closing.enumerated() {
                let slot = entries[2 + waiting.count + index]
                var ended = Self.isPast(entry.deadline, now)
                if slot.revents != 0 && !ended {
                    switch valueOrErrno({ recv(entry.descriptor, &buffer, buffer.count, bandkit_msg_nowait()) }) {
                    case .success(let got): ended = got == 0
                    case .failure(let error): ended = error != .wouldBlock
                    }
                }
                if ended { close(entry.descriptor) } else { stillClosing.append(entry) }
            }
            closing = stillClosing
            // Waiting connections: judge what arrived; answer those past their deadline.
            var stillWaiting: [Waiting] = []
            for (index, connection) in waiting.enumerated() {
                let slot = entries[2 + index]
                if slot.revents != 0 {
                    let got: Int
                    switch valueOrErrno({ recv(connection.descriptor, &buffer, buffer.count, bandkit_msg_peek_nowait()) }) {
                    case .success(let count): got = count
                    case .failure(.wouldBlock): got = -1
                    case .failure: got = 0   // the connection failed: gone, as at end of file
                    }
                    if got == 0 {
                        close(connection.descriptor)   // the client left before its head was whole
                        continue
                    }
                    if got > 0 {
                        switch gate.verdict(buffer[0..<got]) {
                        case .needMore: break
                        case .admit: handOver(connection); continue
                        case .refuse(let status, let message): answer(connection.descriptor, status: status, message: message); continue
                        }
                    }
                }
                if Self.isPast(connection.deadline, now) {
                    answer(connection.descriptor, status: 408, message: "the request head did not arrive within \(limits.headerTimeoutSeconds) s")
                } else {
                    stillWaiting.append(connection)
                }
            }
            waiting = stillWaiting
            if entries[1].revents != 0 { acceptAll() }
        }
        for connection in waiting { close(connection.descriptor) }
        for entry in closing { close(entry.descriptor) }
        waiting = []
        closing = []
        close(listener)
    }

    private func acceptAll() {
        while true {
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let descriptor = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bandkit_accept(listener, $0, &length) }
            }
            guard descriptor >= 0 else { return }
            if waiting.count + context.connections.load(ordering: .acquiring) >= Int(limits.connections) {
                answer(descriptor, status: 503, message: "the dashboard is serving \(limits.connections) connections; try again shortly",
                       headers: "Retry-After: \(limits.retryAfterSeconds)\r\n")
                continue
            }
            waiting.append(Waiting(descriptor: descriptor, address: address, length: length,
                                   deadline: Self.now(plusSeconds: Int(limits.headerTimeoutSeconds))))
        }
    }

    private func handOver(_ connection: Waiting) {
        var address = connection.address
        // The library closes the socket itself when it cannot take it.
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { MHD_add_connection(daemon, connection.descriptor, $0, connection.length) }
        }
    }

    /// Sends a plain-text answer and closes gracefully (after reading what the client still sends).
    private func answer(_ descriptor: Int32, status: Int, message: String, headers: String = "") {
        let body = "\(status) \(message)\n"
        let text = "HTTP/1.1 \(status) \(Self.reason(status))\r\nContent-Type: text/plain; charset=utf-8\r\n"
            + "Content-Length: \(body.utf8.count)\r\n\(headers)Connection: close\r\nX-Content-Type-Options: nosniff\r\n"
            + "Cache-Control: no-store\r\n\r\n" + body
        _ = text.utf8CString.withUnsafeBufferPointer { send(descriptor, $0.baseAddress, $0.count - 1, bandkit_msg_send_nowait()) }
        shutdown(descriptor, Int32(SHUT_WR))
        if closing.count >= Int(limits.connections) {
            close(descriptor)
        } else {
            closing.append((descriptor, Self.now(plusSeconds: 1)))
        }
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 408: "Request Timeout"
        case 413: "Content Too Large"
        case 421: "Misdirected Request"
        case 431: "Request Header Fields Too Large"
        case 503: "Service Unavailable"
        default: "Error"
        }
    }

    private func nextTimeout() -> Int32 {
        let deadlines = waiting.map(\.deadline) + closing.map(\.deadline)
        guard let first = deadlines.min(by: { ($0.tv_sec, $0.tv_nsec) < ($1.tv_sec, $1.tv_nsec) }) else { return -1 }
        let now = Self.now()
        let milliseconds = (first.tv_sec - now.tv_sec) * 1000 + (first.tv_nsec - now.tv_nsec) / 1_000_000
        return Int32(clamping: max(0, milliseconds + 1))
    }

    static func now(plusSeconds seconds: Int = 0) -> timespec {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        time.tv_sec += seconds
        return time
    }

    static func isPast(_ deadline: timespec, _ now: timespec) -> Bool {
        (now.tv_sec, now.tv_nsec) >= (deadline.tv_sec, deadline.tv_nsec)
    }
}
