#if canImport(Glibc)
import Glibc
#endif

/// The middle layer: each call once, `EINTR` retried, the outcome as `Result<_, Errno>`.
///
/// `package` so every module of BandKit (links, BlueZ sockets, trace files, the keystore)
/// makes the same calls; the public types above turn failures into their own errors with the
/// call's name.
extension SystemCalls {
    package func socket(domain: Int32, type: Int32, protocol proto: Int32) -> Result<Int32, Errno> {
        valueOrErrno { socket(domain, type, proto) }
    }

    package func socketPair(domain: Int32, type: Int32, protocol proto: Int32) -> Result<(Int32, Int32), Errno> {
        var pair: (Int32, Int32) = (-1, -1)
        let result = withUnsafeMutableBytes(of: &pair) { raw in
            valueOrErrno { socketpair(domain, type, proto, raw.baseAddress!.assumingMemoryBound(to: Int32.self)) }
        }
        return result.map { _ in pair }
    }

    package func bind(_ fd: Int32, address: UnsafeRawBufferPointer) -> Result<Void, Errno> {
        valueOrErrno {
            bind(fd, address.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(address.count))
        }.map { _ in () }
    }

    package func listen(_ fd: Int32, backlog: Int32) -> Result<Void, Errno> {
        valueOrErrno { listen(fd, backlog) }.map { _ in () }
    }

    /// Accepts one connection; the peer's address, if wanted, goes into `peerAddress`.
    package func accept(_ fd: Int32, peerAddress: UnsafeMutableRawBufferPointer? = nil, flags: Int32) -> Result<Int32, Errno> {
        guard let peerAddress else { return valueOrErrno { accept4(fd, nil, nil, flags) } }
        var length = socklen_t(peerAddress.count)
        return valueOrErrno {
            accept4(fd, peerAddress.baseAddress?.assumingMemoryBound(to: sockaddr.self), &length, flags)
        }
    }

    /// Starts or completes a connection. `EINTR` is not retried here: the connection goes on
    /// in the background (POSIX), so a second `connect` would fail with `EALREADY`. Callers
    /// treat `.interrupted` like `.inProgress` and wait with ``awaitConnection(_:timeout:)``.
    package func connect(_ fd: Int32, address: UnsafeRawBufferPointer) -> Result<Void, Errno> {
        valueOrErrno(retryOnInterrupt: false) {
            connect(fd, address.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(address.count))
        }.map { _ in () }
    }

    /// Waits for an in-progress `connect` to finish and returns its outcome (`SO_ERROR`).
    package func awaitConnection(_ fd: Int32, timeout: Duration?) -> Result<Void, Errno> {
        var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        switch pollOne(&entry, timeout: timeout) {
        case .failure(let error): return .failure(error)
        case .success(0): return .failure(.timedOut)
        case .success: break
        }
        switch option(fd, level: SOL_SOCKET, name: SO_ERROR, as: Int32.self) {
        case .failure(let error): return .failure(error)
        case .success(0): return .success(())
        case .success(let code): return .failure(Errno(rawValue: code))
        }
    }

    package func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, flags: Int32) -> Result<Int, Errno> {
        valueOrErrno { send(fd, bytes.baseAddress, bytes.count, flags) }
    }

    package func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, flags: Int32) -> Result<Int, Errno> {
        valueOrErrno { recv(fd, buffer.baseAddress, buffer.count, flags) }
    }

    package func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> {
        valueOrErrno { read(fd, buffer.baseAddress, buffer.count) }
    }

    package func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Result<Int, Errno> {
        valueOrErrno { write(fd, bytes.baseAddress, bytes.count) }
    }

    /// Waits up to `timeout` (nil: forever) for any of `fds`; returns how many are ready (0: timed out).
    /// An interrupted wait resumes with whatever time is left, so signals never stretch a deadline.
    package func poll(_ fds: UnsafeMutableBufferPointer<pollfd>, timeout: Duration?) -> Result<Int, Errno> {
        let deadline = timeout.map { ContinuousClock.now.advanced(by: $0) }
        var remaining = timeout
        while true {
            let result = valueOrErrno(retryOnInterrupt: false) {
                poll(fds.baseAddress, nfds_t(fds.count), PollTimeout.milliseconds(remaining))
            }
            if result != .failure(.interrupted) { return result.map { Int($0) } }
            if let deadline { remaining = max(.zero, deadline - ContinuousClock.now) }
        }
    }

    package func pollOne(_ entry: inout pollfd, timeout: Duration?) -> Result<Int, Errno> {
        withUnsafeMutablePointer(to: &entry) { poll(UnsafeMutableBufferPointer(start: $0, count: 1), timeout: timeout) }
    }

    /// Closes `fd`. Never retried: on Linux the descriptor is released even when `close`
    /// reports `EINTR`, and a retry could close a descriptor another thread just opened; so
    /// `EINTR` counts as closed, and only other failures (`EIO`: data lost) are reported.
    package func close(descriptor fd: Int32) -> Result<Void, Errno> {
        switch valueOrErrno(retryOnInterrupt: false, { close(fd) }) {
        case .success, .failure(.interrupted): return .success(())
        case .failure(let error): return .failure(error)
        }
    }

    package func setOption<T>(_ fd: Int32, level: Int32, name: Int32, value: T) -> Result<Void, Errno> {
        var value = value
        return withUnsafeBytes(of: &value) { raw in
            valueOrErrno { setsockopt(fd, level, name, raw.baseAddress, socklen_t(raw.count)) }
        }.map { _ in () }
    }

    /// Reads a fixed-size socket option. `T` must be a plain C type (an integer or struct).
    package func option<T>(_ fd: Int32, level: Int32, name: Int32, as type: T.Type) -> Result<T, Errno> {
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: MemoryLayout<T>.size, alignment: MemoryLayout<T>.alignment)
        defer { storage.deallocate() }
        storage.initializeMemory(as: UInt8.self, repeating: 0)
        var length = socklen_t(storage.count)
        return valueOrErrno { getsockopt(fd, level, name, storage.baseAddress, &length) }
            .map { _ in storage.load(as: T.self) }
    }

    /// Fills `address` with the socket's own address; returns the length the kernel wrote.
    package func socketName(_ fd: Int32, into address: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> {
        var length = socklen_t(address.count)
        return valueOrErrno { getsockname(fd, address.baseAddress?.assumingMemoryBound(to: sockaddr.self), &length) }
            .map { _ in Int(length) }
    }

    package func unlink(path: String) -> Result<Void, Errno> {
        valueOrErrno { unlink(path) }.map { _ in () }
    }

    package func fileStatus(path: String) -> Result<stat, Errno> {
        var status = stat()
        return valueOrErrno { lstat(path, &status) }.map { _ in status }
    }

    package func makeDirectory(path: String, mode: mode_t) -> Result<Void, Errno> {
        valueOrErrno { mkdir(path, mode) }.map { _ in () }
    }

    package func fileControl(_ fd: Int32, command: Int32, argument: Int32 = 0) -> Result<Int32, Errno> {
        valueOrErrno { fcntl(fd, command, argument) }
    }

    package func open(path: String, flags: Int32, mode: mode_t = 0) -> Result<Int32, Errno> {
        valueOrErrno { open(path, flags | O_CLOEXEC, mode) }
    }

    package func synchronize(_ fd: Int32) -> Result<Void, Errno> {
        valueOrErrno { fsync(fd) }.map { _ in () }
    }

    package func rename(from source: String, to destination: String) -> Result<Void, Errno> {
        valueOrErrno { rename(source, destination) }.map { _ in () }
    }

    package func changeMode(_ fd: Int32, _ mode: mode_t) -> Result<Void, Errno> {
        valueOrErrno { fchmod(fd, mode) }.map { _ in () }
    }

    /// `flock(fd, operation)`; a blocking `LOCK_EX` interrupted by a signal waits again.
    package func lockFile(_ fd: Int32, _ operation: Int32) -> Result<Void, Errno> {
        valueOrErrno { flock(fd, operation) }.map { _ in () }
    }

    /// Writes all of `bytes`, continuing after short writes (regular files and pipes). A write
    /// that takes nothing is `EIO`, not a reason to spin.
    package func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Result<Void, Errno> {
        var offset = 0
        while offset < bytes.count {
            switch write(fd, UnsafeRawBufferPointer(rebasing: bytes[offset...])) {
            case .success(0): return .failure(.ioError)
            case .success(let count): offset += count
            case .failure(let error): return .failure(error)
            }
        }
        return .success(())
    }

    /// Reads a whole (small) file.
    package func readFile(path: String) -> Result<[UInt8], Errno> {
        let fd: Int32
        switch open(path: path, flags: O_RDONLY) {
        case .success(let opened): fd = opened
        case .failure(let error): return .failure(error)
        }
        defer { _ = close(descriptor: fd) }
        var contents: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let result = chunk.withUnsafeMutableBytes { read(fd, into: $0) }
            switch result {
            case .success(0): return .success(contents)
            case .success(let count): contents += chunk[0..<count]
            case .failure(let error): return .failure(error)
            }
        }
    }

    /// A pipe whose ends are both close-on-exec and non-blocking (the self-pipe shape).
    package func nonBlockingPipe() -> Result<(read: Int32, write: Int32), Errno> {
        var ends: (Int32, Int32) = (-1, -1)
        let made = withUnsafeMutableBytes(of: &ends) { raw in
            valueOrErrno { pipe(raw.baseAddress!.assumingMemoryBound(to: Int32.self)) }
        }
        if case .failure(let error) = made { return .failure(error) }
        for fd in [ends.0, ends.1] {
            let flagged = fileControl(fd, command: F_SETFD, argument: FD_CLOEXEC)
                .flatMap { _ in fileControl(fd, command: F_GETFL) }
                .flatMap { flags in fileControl(fd, command: F_SETFL, argument: flags | O_NONBLOCK) }
            if case .failure(let error) = flagged {
                _ = close(descriptor: ends.0)
                _ = close(descriptor: ends.1)
                return .failure(error)
            }
        }
        return .success((ends.0, ends.1))
    }
}

/// `poll(2)` timeouts in whole milliseconds.
package enum PollTimeout {
    /// Rounds up, so a wait never ends before its timeout and spins; nil means forever (-1).
    package static func milliseconds(_ timeout: Duration?) -> Int32 {
        guard let timeout else { return -1 }
        if timeout <= .zero { return 0 }
        let (seconds, attoseconds) = timeout.components
        let nanos = attoseconds / 1_000_000_000
        let millis = seconds.multipliedReportingOverflow(by: 1000)
        guard !millis.overflow else { return Int32.max }
        let total = millis.partialValue + (nanos + 999_999) / 1_000_000
        return Int32(clamping: total)
    }
}
