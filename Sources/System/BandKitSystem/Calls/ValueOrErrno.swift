#if canImport(Glibc)
import Glibc
#endif

/// BandKit's one way of reading a C call's outcome, as swift-system's `valueOrErrno`: a
/// non-negative result is the value; a negative one is a failure whose reason is `errno`, read
/// on the same thread straight after the call.
///
/// With `retryOnInterrupt` (the default) a call a signal interrupted (`EINTR`) is simply made
/// again, so no caller writes that loop by hand. Calls that must not be repeated pass `false`:
/// `close` (on Linux the descriptor is gone even after `EINTR`), `connect` (the connection goes
/// on in the background), and `poll` with a deadline (``SystemCalls/poll(_:timeout:)`` shortens
/// the timeout before waiting again).
@inline(__always)
public func valueOrErrno<Value: FixedWidthInteger>(
    retryOnInterrupt: Bool = true, _ call: () -> Value
) -> Result<Value, Errno> {
    while true {
        let value = call()
        if value >= 0 { return .success(value) }
        let error = Errno.current
        if !retryOnInterrupt || error != .interrupted { return .failure(error) }
    }
}
