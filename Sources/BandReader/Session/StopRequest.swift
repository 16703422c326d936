import BandLink

/// How a running session is asked to stop: Ctrl-C (through ``StopSignals``), a deadline reached
/// by the caller, or a test. A descriptor that becomes readable wakes the session's `poll()`, so
/// a stop takes effect at once, never after a sleep.
public final class StopRequest {
    /// Readable once a stop was requested from outside (a signal); nil when only ``request()`` is used.
    public let pollDescriptor: Int32?
    private let drain: () -> Bool
    public private(set) var isRequested = false

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

    public func request() { isRequested = true }

    /// Called when ``pollDescriptor`` polled readable.
    func descriptorBecameReadable() {
        if drain() { isRequested = true }
    }
}
