/// Slows a central that keeps getting the passkey wrong (Core 5.4 Vol 3 Part H §2.3.6,
/// repeated attempts): after ``allowedFailures`` wrong passkeys in a row, Pairing Requests are
/// refused with Repeated Attempts for a wait that doubles with each further failure, from
/// ``firstWaitMilliseconds`` up to ``longestWaitMilliseconds``. A successful pairing clears it.
/// Kept by the host across links, so reconnecting does not reset the count.
public struct PairingAttemptGuard: Equatable, Sendable {
    public static let allowedFailures = 3
    public static let firstWaitMilliseconds: UInt32 = 10_000
    public static let longestWaitMilliseconds: UInt32 = 600_000

    public private(set) var consecutiveFailures = 0
    /// The wait imposed by the last failure (0: none).
    public private(set) var wait: UInt32 = 0
    var blockedUntil: UInt32 = 0

    public init() {}

    /// A pairing failed on a wrong passkey at `now`; returns the wait now imposed (0: none yet).
    public mutating func passkeyFailed(now: UInt32) -> UInt32 {
        consecutiveFailures += 1
        guard consecutiveFailures >= Self.allowedFailures else { return 0 }
        wait = wait == 0 ? Self.firstWaitMilliseconds : min(wait * 2, Self.longestWaitMilliseconds)
        blockedUntil = now &+ wait
        return wait
    }

    /// Milliseconds until pairing is allowed again at `now` (0: allowed).
    public func remaining(now: UInt32) -> UInt32 {
        guard wait > 0 else { return 0 }
        let left = Int32(bitPattern: blockedUntil &- now)
        return left > 0 ? UInt32(left) : 0
    }

    /// A pairing succeeded.
    public mutating func succeeded() {
        consecutiveFailures = 0
        wait = 0
    }
}
