#if canImport(Glibc)
import Glibc
#endif
import BandKitSystem

/// Tells the service manager how the service is doing: the `sd_notify(3)` protocol, spoken directly.
///
/// The protocol is one datagram of `KEY=VALUE` lines sent to the `AF_UNIX` socket named by
/// `NOTIFY_SOCKET` (a path, or `@name` in the abstract namespace); systemd learns the sender
/// from the socket's credentials. That is a dozen lines of socket code, so BandKit speaks it
/// itself rather than linking libsystemd: no new C library in the link (the manifest keeps C to
/// the link, the store and the file formats), nothing to install on a machine without systemd,
/// and the same binary runs under any manager that sets `NOTIFY_SOCKET` (s6, dinit, a test).
///
/// Without `NOTIFY_SOCKET` every call does nothing, so a program notifies unconditionally.
///
/// - ``ready()`` once the service is up (`READY=1`; with `Type=notify` systemd waits for it);
/// - ``watchdog(now:)`` from the main loop while `WatchdogSec=` is set: sends `WATCHDOG=1` when
///   half the interval has passed since the last one (``nextWatchdog`` says when, for the poll timeout);
/// - ``status(_:)`` one line for `systemctl status` (`STATUS=`): control characters escaped,
///   at most ``maximumStatusBytes`` bytes;
/// - ``reloading()`` when the configuration is read again (`RELOADING=1`), then ``ready()``;
/// - ``stopping()`` when a clean stop begins (`STOPPING=1`).
///
/// Sending failures are returned, never fatal: a service must keep running if its manager went
/// away, and the owner logs them.
public final class ServiceNotifier {
    /// The socket's name as `NOTIFY_SOCKET` gave it; nil when notifications are off.
    public let socketName: String?
    /// How often ``watchdog(now:)`` pings: half of `WATCHDOG_USEC`, as `sd_watchdog_enabled(3)`
    /// advises; nil when the watchdog is off (unset, zero, or `WATCHDOG_PID` names another process).
    public let watchdogInterval: Duration?
    /// When the next `WATCHDOG=1` is due; nil when the watchdog is off.
    public private(set) var nextWatchdog: ContinuousClock.Instant?

    /// Longest `STATUS=` text in bytes of UTF-8; longer text is cut with `…`.
    public static let maximumStatusBytes = 256

    private let address: UnixSocketAddress?
    private var descriptor: Int32 = -1
    private let calls = SystemCalls.live

    /// Reads `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID` from `environment` (the
    /// process's by default). Throws when `NOTIFY_SOCKET` is set but is not a socket this can
    /// reach (relative, too long, `vsock:`): a misconfiguration the owner should report rather
    /// than run without the watchdog it was promised.
    public init(environment: [String: String] = ProcessEnvironment.current(), now: ContinuousClock.Instant = .now)
        throws(ServiceNotifierError) {
        let name = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        socketName = name
        if let name {
            guard name.hasPrefix("/") || name.hasPrefix("@"), let address = UnixSocketAddress(name: name) else {
                throw .unsupportedSocket(name)
            }
            self.address = address
        } else {
            address = nil
        }
        watchdogInterval = Self.watchdogInterval(environment: environment, processID: Int(getpid()))
        nextWatchdog = watchdogInterval.map { now + $0 }
    }

    deinit {
        if descriptor >= 0 { _ = calls.close(descriptor: descriptor) }
    }

    /// Whether anything is listening: `NOTIFY_SOCKET` was set.
    public var isEnabled: Bool { address != nil }

    /// The watchdog interval the manager asked for, halved: `WATCHDOG_USEC` microseconds
    /// (a positive decimal), when `WATCHDOG_PID` is absent or names `processID`.
    public static func watchdogInterval(environment: [String: String], processID: Int) -> Duration? {
        guard let text = environment["WATCHDOG_USEC"], let microseconds = UInt64(text), microseconds > 0 else { return nil }
        if let owner = environment["WATCHDOG_PID"], Int(owner) != processID { return nil }
        return .microseconds(Int64(clamping: microseconds / 2))
    }

    /// `READY=1`: start-up is complete.
    public func ready() throws(ServiceNotifierError) { try send("READY=1") }

    /// `STOPPING=1`: a clean stop has begun.
    public func stopping() throws(ServiceNotifierError) { try send("STOPPING=1") }

    /// `RELOADING=1` with `MONOTONIC_USEC=` (the time, as systemd 253's `Type=notify-reload` wants
    /// it): a reload (the configuration read again on SIGHUP) has begun; send ``ready()`` when it is done.
    public func reloading() throws(ServiceNotifierError) {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        try send("RELOADING=1\nMONOTONIC_USEC=\(Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000)")
    }

    /// `STATUS=` one line: control characters escaped (a newline would end the field), cut to
    /// ``maximumStatusBytes``.
    public func status(_ text: String) throws(ServiceNotifierError) {
        try send("STATUS=" + Self.statusLine(text))
    }

    /// `READY=1` and `STATUS=` in one datagram, so the status shown never lags the start.
    public func ready(status text: String) throws(ServiceNotifierError) {
        try send("READY=1\nSTATUS=" + Self.statusLine(text))
    }

    /// Sends `WATCHDOG=1` if it is due by `now` (then schedules the next one); otherwise nothing.
    /// Cheap enough for every turn of the loop. Returns whether it sent.
    @discardableResult
    public func watchdog(now: ContinuousClock.Instant = .now) throws(ServiceNotifierError) -> Bool {
        guard let interval = watchdogInterval, let due = nextWatchdog, due <= now else { return false }
        nextWatchdog = now + interval
        try send("WATCHDOG=1")
        return true
    }

    /// The text ``status(_:)`` sends after `STATUS=`.
    public static func statusLine(_ text: String) -> String {
        TerminalText.truncated(TerminalText.escaped(text), maximumBytes: maximumStatusBytes)
    }

    /// Sends `message` (`KEY=VALUE` lines) as one datagram; nothing when notifications are off.
    public func send(_ message: String) throws(ServiceNotifierError) {
        guard let address, let socketName else { return }
        if descriptor < 0 {
            switch calls.socket(domain: AF_UNIX, type: Int32(SOCK_DGRAM.rawValue) | SocketFlags.closeOnExec, protocol: 0) {
            case .success(let fd): descriptor = fd
            case .failure(let error): throw .sendFailed(socketName, "socket", error)
            }
        }
        let bytes = Array(message.utf8)
        let fd = descriptor
        // Not connected: each datagram is addressed, so a manager that re-created its socket
        // (daemon-reexec) still receives the next one.
        let outcome = bytes.withUnsafeBytes { payload in
            address.withBytes { target in
                valueOrErrno {
                    sendto(fd, payload.baseAddress, payload.count, SocketFlags.noSignal,
                           target.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(target.count))
                }
            }
        }
        if case .failure(let error) = outcome { throw .sendFailed(socketName, "sendto", error) }
    }
}

/// Why a notification could not be sent.
public enum ServiceNotifierError: Error, Equatable, CustomStringConvertible {
    /// `NOTIFY_SOCKET` names something other than an absolute path or an `@` abstract name
    /// of at most 107 bytes (systemd's `vsock:` addresses among them).
    case unsupportedSocket(String)
    /// The named call failed for the socket.
    case sendFailed(String, String, Errno)

    public var description: String {
        switch self {
        case .unsupportedSocket(let name):
            "NOTIFY_SOCKET=\(TerminalText.escaped(name)) is not an absolute path or an @abstract name of at most \(UnixSocketAddress.maximumNameBytes) bytes"
        case .sendFailed(let name, let call, let error):
            "notifying the service manager at \(TerminalText.escaped(name)): \(call): \(error)"
        }
    }
}
