#if canImport(Glibc)
import Glibc
#endif
import Foundation
import ServiceSupport
import Testing

/// A fresh directory under /tmp (short paths: a Unix socket path holds at most 107 bytes).
func temporaryDirectory() throws -> String {
    var template = Array("/tmp/svc.XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    try #require(made != nil)
    return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

func removeTree(_ path: String) {
    try? FileManager.default.removeItem(atPath: path)
}

/// What a client thread produced, handed to the test's thread.
final class ClientOutcome<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value?
    func set(_ value: Value) { lock.withLock { stored = value } }
    var value: Value? { lock.withLock { stored } }
}

/// Runs `client` on a thread of its own while the test's thread drives `server` through its
/// poll step, as the owner's loop would; returns the client's outcome (20 s at most).
/// `between` runs on the test's thread between checks, after the servers' steps.
func drive<Value: Sendable>(_ servers: [any PollDriven], client: @escaping @Sendable () -> Value,
                            between: () -> Void = {}) throws -> Value {
    let outcome = ClientOutcome<Value>()
    let thread = Thread { outcome.set(client()) }
    thread.start()
    let limit = ContinuousClock.now + .seconds(20)
    while ContinuousClock.now < limit {
        for server in servers { server.pollOnce(timeout: .milliseconds(5)) }
        between()
        if let value = outcome.value { return value }
    }
    throw TestFailure("the client did not finish in 20 s")
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A connected stream socket to a Unix path or 127.0.0.1:port, blocking, reads bounded by 10 s.
func connectUnix(_ path: String) -> Int32 {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in for (index, byte) in path.utf8.enumerated() { raw[index] = byte } }
    let result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard result == 0 else { close(fd); return -1 }
    setReceiveTimeout(fd)
    return fd
}

func connectTCP(port: UInt16) -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard result == 0 else { close(fd); return -1 }
    setReceiveTimeout(fd)
    return fd
}

private func setReceiveTimeout(_ fd: Int32) {
    var timeout = timeval(tv_sec: 10, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
}

/// Sends `bytes` (unless nil), then reads until the server closes; nil when the connection failed.
func exchange(_ fd: Int32, _ bytes: [UInt8]?, shutdownAfterSending: Bool = false) -> [UInt8]? {
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    if let bytes {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if count <= 0 { break }
            sent += count
        }
    }
    if shutdownAfterSending { shutdown(fd, Int32(SHUT_WR)) }
    var answer: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count <= 0 { return answer }
        answer += chunk[..<count]
    }
}
