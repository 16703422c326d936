import BandKitSystem
import BandLink
import Glibc
import Synchronization

/// Records system calls and scripts failures for one test; wraps the real calls by default.
public final class MockSystem: Sendable {
    public struct Call: Equatable, Sendable {
        public var name: String
        public var descriptor: Int32
        public var flags: Int32 = 0
        public var detail: String = ""
    }

    private let log = Mutex<[Call]>([])
    /// Errors to report from a call, by name, consumed front first (before the real call runs).
    private let scripted = Mutex<[String: [Errno]]>([:])

    public init() {}

    public var calls: [Call] { log.withLock { $0 } }
    public func calls(named name: String) -> [Call] { calls.filter { $0.name == name } }

    /// The next `count` calls to `name` fail with `error` (`errno` set, `-1` returned).
    public func fail(_ name: String, with error: Errno, times count: Int = 1) {
        scripted.withLock { $0[name, default: []] += Array(repeating: error, count: count) }
    }

    private func record(_ call: Call) -> Errno? {
        log.withLock { $0.append(call) }
        return scripted.withLock { table -> Errno? in
            guard var queue = table[call.name], !queue.isEmpty else { return nil }
            let error = queue.removeFirst()
            table[call.name] = queue
            return error
        }
    }

    public var system: SystemCalls {
        var system = SystemCalls.live
        let live = SystemCalls.live
        system.socket = { [self] domain, type, proto in
            if let error = record(Call(name: "socket", descriptor: -1, flags: type, detail: "domain \(domain)")) { errno = error.rawValue; return -1 }
            return live.socket(domain, type, proto)
        }
        system.connect = { [self] fd, address, length in
            let path = address.withMemoryRebound(to: sockaddr_un.self, capacity: 1) { pointer in
                withUnsafeBytes(of: pointer.pointee.sun_path) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            }
            if let error = record(Call(name: "connect", descriptor: fd, detail: path)) { errno = error.rawValue; return -1 }
            return live.connect(fd, address, length)
        }
        system.send = { [self] fd, bytes, count, flags in
            if let error = record(Call(name: "send", descriptor: fd, flags: flags, detail: "\(count)")) { errno = error.rawValue; return -1 }
            return live.send(fd, bytes, count, flags)
        }
        system.recv = { [self] fd, buffer, count, flags in
            if let error = record(Call(name: "recv", descriptor: fd, flags: flags, detail: "\(count)")) { errno = error.rawValue; return -1 }
            return live.recv(fd, buffer, count, flags)
        }
        system.poll = { [self] fds, count, timeout in
            if let error = record(Call(name: "poll", descriptor: fds?.pointee.fd ?? -1, detail: "\(timeout)")) { errno = error.rawValue; return -1 }
            return live.poll(fds, count, timeout)
        }
        system.close = { [self] fd in
            _ = record(Call(name: "close", descriptor: fd))
            return live.close(fd)
        }
        system.accept4 = { [self] fd, address, length, flags in
            if let error = record(Call(name: "accept4", descriptor: fd, flags: flags)) { errno = error.rawValue; return -1 }
            return live.accept4(fd, address, length, flags)
        }
        system.unlink = { [self] path in
            if let error = record(Call(name: "unlink", descriptor: -1, detail: String(cString: path))) { errno = error.rawValue; return -1 }
            return live.unlink(path)
        }
        return system
    }
}
