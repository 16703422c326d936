#if canImport(Glibc)
import Glibc
#endif
import BandKitSystem

/// What a server decides from the bytes a client sent so far.
enum RequestJudgement {
    /// Not whole yet: read more (within the size limit and the deadline).
    case needMore
    /// Send these bytes, then close.
    case respond([UInt8])
    /// Close without an answer (garbage, or a client that is not allowed).
    case drop
}

/// How many clients a stream server serves at once, how much one may send, and for how long.
public struct StreamServerLimits: Sendable, Equatable {
    /// Longest request accepted, in bytes (a control line, an HTTP request head).
    public var maximumRequestBytes: Int
    /// From accept to the last byte of the answer: a client slower than this is dropped.
    public var clientDeadline: Duration
    /// Clients served at once; further ones wait in the listen backlog, costing nothing here.
    public var maximumClients: Int
    /// Connections accepted per ``PollDriven/handle(_:now:budget:)`` step at most, so a flood of
    /// clients cannot keep the owner's loop from its own work.
    public var acceptsPerStep: Int

    public init(maximumRequestBytes: Int = 4096, clientDeadline: Duration = .seconds(2), maximumClients: Int = 8,
                acceptsPerStep: Int = 8) {
        precondition(maximumRequestBytes > 0 && maximumClients > 0 && acceptsPerStep > 0 && clientDeadline > .zero)
        self.maximumRequestBytes = maximumRequestBytes
        self.clientDeadline = clientDeadline
        self.maximumClients = maximumClients
        self.acceptsPerStep = acceptsPerStep
    }
}

/// What a stream server has done since it started, for the owner's logs and metrics.
public struct StreamServerCounters: Sendable, Equatable {
    /// Connections accepted.
    public var accepted = 0
    /// Answers written in full.
    public var answered = 0
    /// Connections closed without an answer: garbage, refused peers, nothing sent.
    public var dropped = 0
    /// Connections closed because the client was slower than ``StreamServerLimits/clientDeadline``.
    public var timedOut = 0
    public init() {}
}

/// The one non-blocking, poll-driven request/answer server under the control socket and the
/// metrics endpoint: accept, read one request (bounded), answer it (the judge decides), close.
///
/// After the answer the server shuts its writing side and reads until the client closes (briefly):
/// closing a TCP socket with unread bytes sends a reset, which can destroy an answer the client
/// has not read yet.
final class StreamRequestServer {
    private struct Client {
        enum Phase { case reading, writing, draining }
        let descriptor: Int32
        var phase = Phase.reading
        var input: [UInt8] = []
        var output: [UInt8] = []
        var written = 0
        var deadline: ContinuousClock.Instant
    }

    let listener: Int32
    let limits: StreamServerLimits
    private(set) var counters = StreamServerCounters()
    private var clients: [Client] = []
    /// After an accept failure other than "nothing waiting" (no descriptors left): the listener
    /// is not polled until then, so a ready listener that cannot be accepted does not spin the loop.
    private var acceptPausedUntil: ContinuousClock.Instant?
    private let admit: (Int32) -> Bool
    private let judge: (_ input: [UInt8], _ ended: Bool) -> RequestJudgement
    private let calls = SystemCalls.live
    /// How long a client gets to close after its answer, at most.
    private static let drainTime = Duration.milliseconds(500)
    private static let acceptPause = Duration.milliseconds(100)

    /// `listener` is a listening, non-blocking socket the server now owns. `admit` sees each
    /// accepted descriptor first (peer credentials); `judge` sees the request bytes so far and
    /// whether the client has stopped sending.
    init(listener: Int32, limits: StreamServerLimits, admit: @escaping (Int32) -> Bool = { _ in true },
         judge: @escaping (_ input: [UInt8], _ ended: Bool) -> RequestJudgement) {
        self.listener = listener
        self.limits = limits
        self.admit = admit
        self.judge = judge
    }

    deinit {
        for client in clients { _ = calls.close(descriptor: client.descriptor) }
        _ = calls.close(descriptor: listener)
    }

    func appendPollDescriptors(to descriptors: inout [pollfd]) {
        if clients.count < limits.maximumClients, acceptPausedUntil == nil { descriptors.append(pollfd(fd: listener, events: Int16(POLLIN), revents: 0)) }
        for client in clients {
            let events = client.phase == .writing ? Int16(POLLOUT) : Int16(POLLIN)
            descriptors.append(pollfd(fd: client.descriptor, events: events, revents: 0))
        }
    }

    var nextDeadline: ContinuousClock.Instant? {
        let earliest = clients.lazy.map(\.deadline).min()
        guard let paused = acceptPausedUntil else { return earliest }
        return earliest.map { min($0, paused) } ?? paused
    }

    func handle(_ polled: some Collection<pollfd>, now: ContinuousClock.Instant, budget: Duration) {
        let stop = now + budget
        var ready = Set<Int32>()
        for entry in polled where entry.revents != 0 { ready.insert(entry.fd) }
        var index = 0
        while index < clients.count {
            if ready.contains(clients[index].descriptor), ContinuousClock.now < stop { step(&clients[index]) }
            if clients[index].phase == .draining, clients[index].deadline <= now || clients[index].descriptor < 0 {
                finish(at: index)
                continue
            }
            if clients[index].deadline <= now {
                counters.timedOut += 1
                finish(at: index)
                continue
            }
            index += 1
        }
        if let paused = acceptPausedUntil, paused <= now { acceptPausedUntil = nil }
        if ready.contains(listener) { acceptClients(now: now, stop: stop) }
    }

    private func finish(at index: Int) {
        if clients[index].descriptor >= 0 { _ = calls.close(descriptor: clients[index].descriptor) }
        clients.remove(at: index)
    }

    private func acceptClients(now: ContinuousClock.Instant, stop: ContinuousClock.Instant) {
        var accepted = 0
        while clients.count < limits.maximumClients, accepted < limits.acceptsPerStep, ContinuousClock.now < stop {
            let descriptor: Int32
            switch calls.accept(listener, flags: SocketFlags.nonBlocking | SocketFlags.closeOnExec) {
            case .success(let fd): descriptor = fd
            // Nothing waiting, or a client that left before it was accepted: the next step tries again.
            case .failure(.wouldBlock), .failure(.connectionAborted), .failure(.interrupted): return
            // No descriptors or memory left: try again a little later; the server is unaffected.
            case .failure:
                acceptPausedUntil = now + Self.acceptPause
                return
            }
            accepted += 1
            counters.accepted += 1
            guard admit(descriptor) else {
                counters.dropped += 1
                _ = calls.close(descriptor: descriptor)
                continue
            }
            var client = Client(descriptor: descriptor, deadline: now + limits.clientDeadline)
            // The request may be there already: answer without waiting for the next poll.
            step(&client)
            if client.descriptor >= 0 { clients.append(client) }
        }
    }

    /// Moves one client as far as it goes without blocking. A client whose descriptor ends up
    /// negative has been closed.
    private func step(_ client: inout Client) {
        switch client.phase {
        case .reading: read(&client)
        case .writing: write(&client)
        case .draining: drain(&client)
        }
    }

    private func read(_ client: inout Client) {
        var chunk = [UInt8](repeating: 0, count: 4096)
        var ended = false
        while client.input.count <= limits.maximumRequestBytes {
            // One byte past the limit at most, so "too long" is seen without reading more.
            let room = min(chunk.count, limits.maximumRequestBytes + 1 - client.input.count)
            let outcome = chunk.withUnsafeMutableBytes { calls.receive(client.descriptor, into: UnsafeMutableRawBufferPointer(rebasing: $0[..<room]), flags: 0) }
            switch outcome {
            case .success(0): ended = true
            case .success(let count): client.input += chunk[..<count]; continue
            case .failure(.wouldBlock): break
            case .failure: return drop(&client)
            }
            break
        }
        switch judge(client.input, ended) {
        case .needMore:
            if ended || client.input.count > limits.maximumRequestBytes { drop(&client) }
        case .drop:
            drop(&client)
        case .respond(let answer):
            client.output = answer
            client.phase = .writing
            write(&client)
        }
    }

    private func write(_ client: inout Client) {
        while client.written < client.output.count {
            let outcome = client.output.withUnsafeBytes {
                calls.send(client.descriptor, UnsafeRawBufferPointer(rebasing: $0[client.written...]), flags: SocketFlags.noSignal)
            }
            switch outcome {
            case .success(let count): client.written += count
            case .failure(.wouldBlock): return
            case .failure: return drop(&client)
            }
        }
        counters.answered += 1
        client.output = []
        _ = Glibc.shutdown(client.descriptor, Int32(SHUT_WR))
        client.phase = .draining
        client.deadline = min(client.deadline, .now + Self.drainTime)
        drain(&client)
    }

    private func drain(_ client: inout Client) {
        var sink = [UInt8](repeating: 0, count: 512)
        while true {
            switch sink.withUnsafeMutableBytes({ calls.receive(client.descriptor, into: $0, flags: 0) }) {
            case .success(0), .failure(.connectionReset), .failure(.notConnected):
                _ = calls.close(descriptor: client.descriptor)
                client = Client(descriptor: -1, phase: .draining, deadline: client.deadline)
                return
            case .success: continue
            case .failure(.wouldBlock): return
            case .failure:
                _ = calls.close(descriptor: client.descriptor)
                client = Client(descriptor: -1, phase: .draining, deadline: client.deadline)
                return
            }
        }
    }

    private func drop(_ client: inout Client) {
        counters.dropped += 1
        _ = calls.close(descriptor: client.descriptor)
        client = Client(descriptor: -1, phase: .draining, deadline: client.deadline)
    }
}
