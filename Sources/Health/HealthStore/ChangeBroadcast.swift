import BandKitSystem
import HealthModel
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One ``ChangeWatch`` for a whole server, fanned out to any number of waiters (the dashboard's
/// event streams): one inotify instance or one PostgreSQL LISTEN connection and one thread per
/// process, however many pages are open — not one each, which let viewers exhaust the database's
/// `max_connections` and lock writers out.
///
/// The watching thread starts with the first subscriber and runs until ``stop()``. Each subscriber
/// has a pipe that is signalled when the latest anchor or the failure count changes; it reads
/// `Subscription/latest` then. When the watch fails (the database went away), subscribers are
/// signalled with a higher failure count, the full error goes to `log` (the server's standard
/// error, never to clients) and the watch is set up again after `retryInterval`.
public final class ChangeBroadcast: @unchecked Sendable {
    public struct State: Equatable, Sendable {
        /// The newest anchor at which the store's person had a change (nil: none seen yet).
        public var anchor: Anchor?
        /// How many times the watch failed so far.
        public var failures: Int
    }

    private let store: HealthStore
    private let log: @Sendable (String) -> Void
    private let retryInterval: Duration
    private let shared = Mutex(Shared())
    private struct Shared {
        var state = State(anchor: nil, failures: 0)
        var subscribers: [ObjectIdentifier: Int32] = [:]
        var running = false
        var stopping = false
    }
    private var thread: pthread_t?
    private var startAnchor: Anchor?
    /// Readable once ``stop()`` was called: the retry wait is a `poll` on it, never a sleep loop.
    private let stopPipe: (read: Int32, write: Int32)?

    public init(store: HealthStore, retryInterval: Duration = .seconds(5), log: @escaping @Sendable (String) -> Void) {
        self.store = store
        self.retryInterval = retryInterval
        self.log = log
        stopPipe = try? SystemCalls.live.nonBlockingPipe().get()
    }

    deinit {
        if let stopPipe {
            _ = SystemCalls.live.close(descriptor: stopPipe.read)
            _ = SystemCalls.live.close(descriptor: stopPipe.write)
        }
    }

    public var state: State { shared.withLock { $0.state } }

    /// The current anchor if the store's person has a change after `anchor`, else nil: what a new
    /// waiter missed before it subscribed.
    public func change(after anchor: Anchor) throws -> Anchor? {
        let current = try store.currentAnchor()
        return try current > anchor && store.hasChanges(after: anchor, through: current) ? current : nil
    }

    /// A new waiter; starts the watching thread if it is the first.
    public func subscribe() throws -> Subscription {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw Errno(rawValue: errno) }
        for end in ends { _ = fcntl(end, F_SETFL, O_NONBLOCK); _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let subscription = Subscription(broadcast: self, descriptor: ends[0], writeEnd: ends[1])
        let descriptor = ends[1]
        // The first anchor is read before the caller compares its own, so no commit falls between.
        let first = try shared.withLock { $0.running } ? nil : store.currentAnchor()
        let start = shared.withLock { shared -> Bool in
            shared.subscribers[ObjectIdentifier(subscription)] = descriptor
            defer { shared.running = true }
            return !shared.running && !shared.stopping
        }
        if start {
            var made = pthread_t()
            startAnchor = first
            pthread_create(&made, nil, { raw in
                Unmanaged<ChangeBroadcast>.fromOpaque(raw!).takeRetainedValue().run()
                return nil
            }, Unmanaged.passRetained(self).toOpaque())
            thread = made
        }
        return subscription
    }

    fileprivate func unsubscribe(_ subscription: Subscription) {
        shared.withLock { _ = $0.subscribers.removeValue(forKey: ObjectIdentifier(subscription)) }
    }

    /// Ends the watching thread (within about a second) and waits for it.
    public func stop() {
        shared.withLock { $0.stopping = true }
        if let stopPipe { _ = [UInt8(1)].withUnsafeBytes { SystemCalls.live.write(stopPipe.write, $0) } }
        if let thread { pthread_join(thread, nil) }
        thread = nil
    }

    private var stopping: Bool { shared.withLock { $0.stopping } }

    private func publish(_ change: (inout State) -> Void) {
        shared.withLock { shared in
            change(&shared.state)
            var one: UInt8 = 1
            // A full pipe already holds a wake-up: nothing is lost when this write fails.
            for descriptor in shared.subscribers.values { _ = write(descriptor, &one, 1) }
        }
    }

    private func run() {
        var watch: ChangeWatch?
        var anchor = startAnchor
        while !stopping {
            do {
                if watch == nil {
                    watch = try store.changeWatch()
                }
                let seen = try anchor ?? store.currentAnchor()
                anchor = seen
                if let current = try watch!.wait(after: seen, timeout: .seconds(1)) {
                    anchor = current
                    publish { $0.anchor = current }
                }
            } catch {
                watch = nil
                log("the change feed failed: \(error); trying again in \(retryInterval)")
                publish { $0.failures += 1 }
                var entry = pollfd(fd: stopPipe?.read ?? -1, events: Int16(POLLIN), revents: 0)
                _ = SystemCalls.live.pollOne(&entry, timeout: retryInterval)
            }
        }
    }

    /// One waiter's wake-up descriptor; unsubscribes (and closes it) when released.
    public final class Subscription: @unchecked Sendable {
        private let broadcast: ChangeBroadcast
        /// Readable when the state changed since it was last ``acknowledge()``d (a pipe's read end).
        public let descriptor: Int32
        private let writeEnd: Int32

        fileprivate init(broadcast: ChangeBroadcast, descriptor: Int32, writeEnd: Int32) {
            self.broadcast = broadcast
            self.descriptor = descriptor
            self.writeEnd = writeEnd
        }

        /// Clears the wake-up and returns the state now.
        public func acknowledge() -> State {
            var buffer = [UInt8](repeating: 0, count: 64)
            while read(descriptor, &buffer, buffer.count) > 0 {}
            return broadcast.state
        }

        deinit {
            broadcast.unsubscribe(self)
            close(descriptor)
            close(writeEnd)
        }
    }
}
