#if canImport(Glibc)
import Glibc
#endif
import ServiceSupport
import Testing

/// sd_notify against a real datagram socket, bound where systemd would bind it.
@Suite struct ServiceNotifierTests {
    /// A bound datagram socket at `name` (a path, or `@name` abstract); reads time out after 2 s.
    final class ManagerSocket {
        let fd: Int32
        init(_ name: String) throws {
            fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(name.utf8)
            let abstract = bytes.first == UInt8(ascii: "@")
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (index, byte) in bytes.enumerated() { raw[index] = abstract && index == 0 ? 0 : byte }
            }
            let length = 2 + bytes.count + (abstract ? 0 : 1)
            let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(length)) } }
            try #require(bound == 0)
            var timeout = timeval(tv_sec: 2, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }
        deinit { close(fd) }

        /// The next datagram, or nil after the timeout.
        func receive(timeout: Int = 2) -> String? {
            var timeout = timeval(tv_sec: timeout, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            return count < 0 ? nil : String(decoding: buffer[..<count], as: UTF8.self)
        }
    }

    @Test func sendsReadyStatusWatchdogAndStoppingToAPathSocket() throws {
        let directory = try temporaryDirectory()
        defer { removeTree(directory) }
        let manager = try ManagerSocket(directory + "/notify")
        let start = ContinuousClock.now
        let notifier = try ServiceNotifier(environment: ["NOTIFY_SOCKET": directory + "/notify", "WATCHDOG_USEC": "4000000"], now: start)
        #expect(notifier.isEnabled)
        try notifier.ready(status: "3/5 devices connected")
        #expect(manager.receive() == "READY=1\nSTATUS=3/5 devices connected")
        try notifier.status("last commit 10:00:01")
        #expect(manager.receive() == "STATUS=last commit 10:00:01")

        // Half of the 4 s interval: nothing before 2 s, one ping at 2 s, the next at 4 s.
        #expect(notifier.watchdogInterval == .seconds(2))
        #expect(notifier.nextWatchdog == start + .seconds(2))
        #expect(try notifier.watchdog(now: start + .seconds(1)) == false)
        #expect(try notifier.watchdog(now: start + .seconds(2)) == true)
        #expect(manager.receive() == "WATCHDOG=1")
        #expect(try notifier.watchdog(now: start + .milliseconds(3999)) == false)
        #expect(notifier.nextWatchdog == start + .seconds(4))

        try notifier.reloading()
        let reloading = try #require(manager.receive())
        #expect(reloading.hasPrefix("RELOADING=1\nMONOTONIC_USEC="))
        var monotonic = timespec()
        clock_gettime(CLOCK_MONOTONIC, &monotonic)
        let sent = try #require(Int64(reloading.dropFirst("RELOADING=1\nMONOTONIC_USEC=".count)))
        let microseconds = Int64(monotonic.tv_sec) * 1_000_000 + Int64(monotonic.tv_nsec) / 1000
        #expect(sent <= microseconds && sent > microseconds - 10_000_000)

        try notifier.stopping()
        #expect(manager.receive() == "STOPPING=1")
    }

    @Test func reachesAnAbstractSocket() throws {
        let name = "@bandkit-notify-test-\(getpid())"
        let manager = try ManagerSocket(name)
        let notifier = try ServiceNotifier(environment: ["NOTIFY_SOCKET": name])
        try notifier.ready()
        #expect(manager.receive() == "READY=1")
    }

    @Test func statusIsOneBoundedLineWithControlCharactersEscaped() {
        #expect(ServiceNotifier.statusLine("two\nlines\u{1B}[2J\\") == "two\\nlines\\e[2J\\\\")
        let long = ServiceNotifier.statusLine(String(repeating: "é", count: 400))
        #expect(long.utf8.count <= ServiceNotifier.maximumStatusBytes)
        #expect(long.hasSuffix("…"))
        #expect(!long.contains("\n"))
    }

    @Test func withoutNotifySocketEverythingIsANoOp() throws {
        let notifier = try ServiceNotifier(environment: [:])
        #expect(!notifier.isEnabled)
        #expect(notifier.watchdogInterval == nil)
        #expect(notifier.nextWatchdog == nil)
        try notifier.ready()
        try notifier.status("x")
        #expect(try notifier.watchdog(now: .now + .seconds(3600)) == false)
        try notifier.stopping()
        #expect(try ServiceNotifier(environment: ["NOTIFY_SOCKET": ""]).isEnabled == false)
    }

    @Test func watchdogIntervalFollowsUsecAndPid() {
        let pid = Int(getpid())
        #expect(ServiceNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "30000000"], processID: pid) == .seconds(15))
        #expect(ServiceNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "\(pid)"], processID: pid) == .seconds(15))
        #expect(ServiceNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "\(pid + 1)"], processID: pid) == nil)
        for bad in ["0", "-5", "", "12s", "99999999999999999999999"] {
            #expect(ServiceNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": bad], processID: pid) == nil, "\(bad)")
        }
    }

    @Test func refusesSocketsItCannotReach() {
        for name in ["relative/notify", "vsock:2:1234", "@", "/" + String(repeating: "x", count: 200)] {
            #expect(throws: ServiceNotifierError.unsupportedSocket(name)) { try ServiceNotifier(environment: ["NOTIFY_SOCKET": name]) }
        }
    }

    @Test func aManagerThatIsGoneIsAnErrorNotACrash() throws {
        let directory = try temporaryDirectory()
        defer { removeTree(directory) }
        let notifier = try ServiceNotifier(environment: ["NOTIFY_SOCKET": directory + "/gone"])
        do {
            try notifier.ready()
            Issue.record("sending to a missing socket succeeded")
        } catch {
            guard case .sendFailed(_, "sendto", .noSuchFileOrDirectory) = error else { Issue.record("\(error)"); return }
            #expect(error.description.contains(directory + "/gone"))
        }
    }
}
