import BandKitSystem
import Glibc
import Synchronization
import Testing

/// ``valueOrErrno(retryOnInterrupt:_:)`` and the middle layer built on it: an interrupted call is
/// made again, every other failure comes back with its errno, and the calls that must not be
/// repeated (close, connect, a poll with a deadline) are not.
@Suite struct ValueOrErrnoTests {
    /// A raw call scripted to fail with the given errnos, then to return `success`.
    final class Script: Sendable {
        private let failures: Mutex<[Int32]>
        let calls = Mutex(0)
        let success: Int32
        init(failing errnos: [Int32], then success: Int32) {
            failures = Mutex(errnos)
            self.success = success
        }
        func call() -> Int32 {
            calls.withLock { $0 += 1 }
            let next = failures.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            guard let next else { return success }
            errno = next
            return -1
        }
        var count: Int { calls.withLock { $0 } }
    }

    @Test func anInterruptedCallIsMadeAgainUntilItSucceeds() {
        let script = Script(failing: [EINTR, EINTR], then: 7)
        #expect(valueOrErrno { script.call() } == .success(7))
        #expect(script.count == 3)
    }

    @Test func anyOtherFailureIsReturnedAtOnceWithItsErrno() {
        let script = Script(failing: [EINTR, ENOSPC], then: 7)
        #expect(valueOrErrno { script.call() } == .failure(.noSpace))
        #expect(script.count == 2)
    }

    @Test func withoutRetryAnInterruptedCallIsReported() {
        let script = Script(failing: [EINTR], then: 7)
        #expect(valueOrErrno(retryOnInterrupt: false) { script.call() } == .failure(.interrupted))
        #expect(script.count == 1)
    }

    @Test func zeroIsAValueNotAFailure() {
        errno = EIO
        #expect(valueOrErrno { Int(0) } == .success(0))
    }

    @Test func aMockedReadThatIsInterruptedThenSucceedsIsRetriedByTheMiddleLayer() {
        let script = Script(failing: [EINTR], then: 3)
        var calls = SystemCalls.live
        calls.read = { _, buffer, _ in
            let result = script.call()
            if result > 0 { buffer!.storeBytes(of: 0x00AA_BBCC as UInt32, as: UInt32.self) }
            return Int(result)
        }
        var bytes = [UInt8](repeating: 0, count: 4)
        let result = bytes.withUnsafeMutableBytes { calls.read(99, into: $0) }
        #expect(result == .success(3))
        #expect(script.count == 2)
        #expect(bytes[0] == 0xCC)
    }

    @Test func closeIsNeverRepeatedAndAnInterruptedCloseCountsAsClosed() {
        let interrupted = Script(failing: [EINTR], then: 0)
        var calls = SystemCalls.live
        calls.close = { _ in interrupted.call() }
        #expect(calls.close(descriptor: 99).failure == nil)
        #expect(interrupted.count == 1)

        let failed = Script(failing: [EIO], then: 0)
        calls.close = { _ in failed.call() }
        #expect(calls.close(descriptor: 99).failure == .ioError)
    }

    @Test func connectIsNotRepeatedAfterAnInterruption() {
        let script = Script(failing: [EINTR], then: 0)
        var calls = SystemCalls.live
        calls.connect = { _, _, _ in script.call() }
        var address = sockaddr_un()
        let result = withUnsafeBytes(of: &address) { calls.connect(3, address: $0) }
        #expect(result.failure == .interrupted, "a second connect would fail with EALREADY")
        #expect(script.count == 1)
    }

    @Test func anInterruptedPollWaitsAgainForTheTimeThatIsLeftNotTheWholeTimeout() {
        let timeouts = Mutex<[Int32]>([])
        let script = Script(failing: [EINTR], then: 0)
        var calls = SystemCalls.live
        calls.poll = { _, _, timeout in
            timeouts.withLock { $0.append(timeout) }
            return script.call()
        }
        var entry = pollfd(fd: -1, events: 0, revents: 0)
        #expect(calls.pollOne(&entry, timeout: .seconds(60)) == .success(0))
        let seen = timeouts.withLock { $0 }
        #expect(seen.count == 2)
        #expect(seen[0] == 60_000 && seen[1] <= seen[0])
    }

    @Test func aWriteThatTakesNothingIsAnErrorNotASpin() {
        let writes = Mutex(0)
        var calls = SystemCalls.live
        calls.write = { _, _, _ in writes.withLock { $0 += 1 }; return 0 }
        let result = [UInt8](repeating: 1, count: 8).withUnsafeBytes { calls.writeAll(3, $0) }
        #expect(result.failure == .ioError)
        #expect(writes.withLock { $0 } == 1)
    }

    @Test func shortWritesAndInterruptionsAreContinuedUntilEveryByteIsWritten() {
        let taken = Mutex<[UInt8]>([])
        let script = Script(failing: [EINTR], then: 0)
        var calls = SystemCalls.live
        calls.write = { _, bytes, count in
            if taken.withLock({ $0.count }) == 2, script.count == 0 { return Int(script.call()) }
            let chunk = min(count, 2)
            let slice = UnsafeRawBufferPointer(start: bytes, count: chunk)
            taken.withLock { $0 += slice }
            return chunk
        }
        let result = [UInt8]([1, 2, 3, 4, 5]).withUnsafeBytes { calls.writeAll(3, $0) }
        #expect(result.failure == nil)
        #expect(taken.withLock { $0 } == [1, 2, 3, 4, 5])
        #expect(script.count == 1)
    }
}

extension Result where Success == Void {
    /// The error of a failed `Result<Void, _>` (which is not `Equatable`), nil on success.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
