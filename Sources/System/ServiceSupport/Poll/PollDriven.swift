#if canImport(Glibc)
import Glibc
#endif
import BandKitSystem

/// A piece of a service that the owner's one poll loop drives: it says which descriptors to wait
/// on and by when it must be called even if none is ready, and does its work in ``handle(_:now:budget:)``
/// without ever blocking.
///
/// One loop, no threads: a gateway polls its links, its timers and these together, so a slow
/// status client or a metrics scrape can never hold up a device, and nothing needs a lock.
///
/// ```swift
/// var descriptors: [pollfd] = []
/// control.appendPollDescriptors(to: &descriptors)
/// metrics.appendPollDescriptors(to: &descriptors)
/// // … the owner's own descriptors …
/// let wake = [control.nextDeadline, metrics.nextDeadline, ownTimer].compactMap { $0 }.min()
/// poll(&descriptors, …until wake…)
/// control.handle(descriptors, now: .now, budget: .milliseconds(20))
/// metrics.handle(descriptors, now: .now, budget: .milliseconds(20))
/// ```
public protocol PollDriven: AnyObject {
    /// Appends the descriptors to wait on, with the events wanted (`POLLIN`, `POLLOUT`).
    func appendPollDescriptors(to descriptors: inout [pollfd])

    /// The latest time ``handle(_:now:budget:)`` must run even when no descriptor is ready (a
    /// client's deadline); nil when only descriptors matter.
    var nextDeadline: ContinuousClock.Instant? { get }

    /// Does the work that is ready: the entries of `polled` that are this object's descriptors
    /// and have events (`revents`), and every deadline that passed by `now`. Never blocks; stops
    /// starting new work once `budget` is spent (what is left waits for the next call).
    func handle(_ polled: some Collection<pollfd>, now: ContinuousClock.Instant, budget: Duration)
}

extension PollDriven {
    /// ``handle(_:now:budget:)`` for a loop that keeps its own poll set and can only say which
    /// descriptors are ready (BandLink's `Poller.isReady`, say): watch each descriptor
    /// ``appendPollDescriptors(to:)`` gives with its events, wait until at most ``nextDeadline``,
    /// then call this with the loop's readiness test.
    public func handle(ready isReady: (Int32) -> Bool, now: ContinuousClock.Instant, budget: Duration) {
        var descriptors: [pollfd] = []
        appendPollDescriptors(to: &descriptors)
        for index in descriptors.indices where isReady(descriptors[index].fd) {
            descriptors[index].revents = descriptors[index].events
        }
        handle(descriptors, now: now, budget: budget)
    }

    /// Polls this object's descriptors alone for up to `timeout` (shortened to its next deadline)
    /// and handles what is ready: for a program, or a test, with nothing else to wait on.
    /// Returns the `poll(2)` failure, if any (an interrupted wait is resumed, not a failure).
    @discardableResult
    public func pollOnce(timeout: Duration, budget: Duration = .milliseconds(50)) -> Errno? {
        var descriptors: [pollfd] = []
        appendPollDescriptors(to: &descriptors)
        var wait = timeout
        if let deadline = nextDeadline { wait = max(.zero, min(wait, deadline - .now)) }
        let outcome = descriptors.withUnsafeMutableBufferPointer { SystemCalls.live.poll($0, timeout: wait) }
        if case .failure(let error) = outcome { return error }
        handle(descriptors, now: .now, budget: budget)
        return nil
    }
}
