#if canImport(Glibc)
import Glibc
#endif
import BandKitSystem

/// One `poll(2)` set over several descriptors, for single-threaded event loops.
///
/// The simulated band and the reader each run one loop that waits on a link, a listener,
/// a stop signal (``StopSignals``) and their next timer at once:
///
/// ```swift
/// var poller = Poller()
/// poller.watch(link.pollDescriptor!)
/// poller.watch(stop.pollDescriptor)
/// while true {
///     try poller.wait(until: nextTick)
///     if poller.isReady(stop.pollDescriptor) { break }
///     if poller.isReady(link.pollDescriptor!) { … }
///     if ContinuousClock.now >= nextTick { … }
/// }
/// ```
///
/// The set is an array of `pollfd` kept between waits, so a loop allocates nothing per turn.
public struct Poller {
    private var entries: [pollfd] = []
    private let system: SystemCalls

    public init(system: SystemCalls = .live) {
        self.system = system
    }

    /// Descriptors being watched, in the order they were added.
    public var descriptors: [Int32] { entries.map(\.fd) }

    /// Watches `fd` for `events` (hang-ups and errors are always reported). Watching a
    /// descriptor again replaces its events.
    public mutating func watch(_ fd: Int32, for events: PollEvents = .readable) {
        if let index = entries.firstIndex(where: { $0.fd == fd }) {
            entries[index].events = events.rawValue
        } else {
            entries.append(pollfd(fd: fd, events: events.rawValue, revents: 0))
        }
    }

    /// Stops watching `fd` (no-op if it was not watched).
    public mutating func unwatch(_ fd: Int32) {
        entries.removeAll { $0.fd == fd }
    }

    /// Waits up to `timeout` (nil: forever) for any watched descriptor; returns how many are
    /// ready, 0 when the timeout passed. Signals do not cut the wait short.
    @discardableResult
    public mutating func wait(timeout: Duration?) throws(LinkError) -> Int {
        for index in entries.indices { entries[index].revents = 0 }
        let system = self.system
        let result = entries.withUnsafeMutableBufferPointer { system.poll($0, timeout: timeout) }
        switch result {
        case .success(let ready): return ready
        case .failure(let error): throw .system("poll", error)
        }
    }

    /// Waits until `deadline` (nil: forever); returns how many are ready, 0 once it has passed.
    @discardableResult
    public mutating func wait(until deadline: ContinuousClock.Instant?) throws(LinkError) -> Int {
        try wait(timeout: deadline.map { max(.zero, $0 - ContinuousClock.now) })
    }

    /// What the last wait reported for `fd` (empty if not watched or not ready).
    public func readiness(of fd: Int32) -> PollEvents {
        guard let entry = entries.first(where: { $0.fd == fd }) else { return [] }
        return PollEvents(rawValue: entry.revents)
    }

    /// True when the last wait found `fd` readable or ended (hang-up, error): a read will not block.
    public func isReady(_ fd: Int32) -> Bool {
        !readiness(of: fd).isDisjoint(with: [.readable, .writable, .hangUp, .error, .invalid])
    }
}
