import BandLink

/// How a running session is asked to stop: Ctrl-C (through `StopSignals`), a deadline reached
/// by the caller, or a test. A descriptor that becomes readable wakes the session's `poll()`, so
/// a stop takes effect at once, never after a sleep.
public final class StopRequest {
    /// Readable once a stop was requested from outside (a signal); nil when only ``request()`` is used.
    public let pollDescriptor: Int32?
    private let drain: () -> Bool
    public private(set) var isRequested = false
    /// Set by ``requestFinish()``.
    public private(set) var isFinishRequested = false

    /// Stops on SIGINT or SIGTERM.
    public convenience init(signals: StopSignals) {
        self.init(pollDescriptor: signals.pollDescriptor) { !signals.received().isEmpty }
    }

    /// Stops only when ``request()`` is called.
    public convenience init() {
        self.init(pollDescriptor: nil) { false }
    }

    /// `drain` consumes whatever made `pollDescriptor` readable and says whether it was a stop.
    public init(pollDescriptor: Int32?, drain: @escaping () -> Bool) {
        self.pollDescriptor = pollDescriptor
        self.drain = drain
    }

    /// Ends at once: a stream writes what it received and ends without another history sync.
    public func request() { isRequested = true }

    /// Ends a stream as its deadline would: what was received is written, then a BandKit band's
    /// history is synced once more so its records replace the provisional minutes. For a caller
    /// that ends the stream on a condition rather than at an instant (a test that wants "two live
    /// minutes stored", whatever the machine's load). Like ``request()`` without a descriptor it
    /// takes effect when the session next waits for the link, so it is best called from the
    /// reader's `report` callback, which runs on the session's thread.
    public func requestFinish() { isFinishRequested = true }

    /// Called when ``pollDescriptor`` polled readable.
    func descriptorBecameReadable() {
        if drain() { isRequested = true }
    }
}
