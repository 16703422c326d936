#if canImport(Glibc)
import Glibc
#endif
import BandKitSystem
import Synchronization

/// SIGINT/SIGTERM turned into a readable descriptor (the self-pipe trick), so Ctrl-C stops an
/// event loop cleanly at its next `poll()` instead of killing it mid-write.
///
/// The handler only writes the signal number to a non-blocking pipe (async-signal-safe);
/// the loop watches ``pollDescriptor`` and calls ``received()``. One instance per process
/// at a time: installing a second replaces the first. ``restore()`` (or deinit) puts the
/// previous handlers back. The kernel delivers a process signal to any thread that does not
/// block it, usually the main thread of a command; threads that block it (test runners do)
/// never run the handler. (`signalfd` would avoid the handler, but needs the signals
/// blocked in every thread, and the Swift `Glibc` module does not export it.)
public final class StopSignals {
    /// Becomes readable once a signal has arrived.
    public let pollDescriptor: Int32
    public let signals: [Int32]
    private let writeEnd: Int32
    private var previous: [Int32: sigaction] = [:]
    private let system: SystemCalls
    private var isOpen = true

    /// Installs handlers for `signals` (default: SIGINT and SIGTERM).
    public init(_ signals: [Int32] = [SIGINT, SIGTERM], system: SystemCalls = .live) throws(LinkError) {
        let ends: (read: Int32, write: Int32)
        switch system.nonBlockingPipe() {
        case .success(let made): ends = made
        case .failure(let error): throw .system("pipe", error)
        }
        pollDescriptor = ends.read
        writeEnd = ends.write
        self.signals = signals
        self.system = system
        stopSignalPipe.store(ends.write, ordering: .sequentiallyConsistent)
        for signal in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = stopSignalHandler
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            var old = sigaction()
            if sigaction(signal, &action, &old) != 0 {
                let error = Errno.current
                restore()
                throw .system("sigaction", error)
            }
            previous[signal] = old
        }
    }

    /// The signals received since the last call (drains the pipe; empty if none).
    public func received() -> [Int32] {
        var numbers: [Int32] = []
        var buffer = [UInt8](repeating: 0, count: 16)
        while true {
            let result = buffer.withUnsafeMutableBytes { system.read(pollDescriptor, into: $0) }
            guard case .success(let count) = result, count > 0 else { break }
            numbers += buffer[0..<count].map { Int32($0) }
        }
        return numbers
    }

    /// Puts back the handlers that were installed before and closes the pipe. Idempotent.
    public func restore() {
        for (signal, old) in previous {
            var old = old
            sigaction(signal, &old, nil)
        }
        previous = [:]
        guard isOpen else { return }
        isOpen = false
        // Unhook the handler only if it still writes to this pipe (a later instance may own it).
        _ = stopSignalPipe.compareExchange(expected: writeEnd, desired: -1, ordering: .sequentiallyConsistent)
        _ = system.close(descriptor: writeEnd)
        _ = system.close(descriptor: pollDescriptor)
    }

    deinit { restore() }
}

/// The write end of the current ``StopSignals`` pipe, read by the signal handler.
private let stopSignalPipe = Atomic<Int32>(-1)

private func stopSignalHandler(_ signal: Int32) {
    let savedErrno = errno
    let fd = stopSignalPipe.load(ordering: .sequentiallyConsistent)
    if fd >= 0 {
        var byte = UInt8(truncatingIfNeeded: signal)
        _ = write(fd, &byte, 1)
    }
    errno = savedErrno
}
