/// Slows a central that keeps getting the passkey wrong (Core 5.4 Vol 3 Part H §2.3.6,
/// repeated attempts): after ``allowedFailures`` wrong passkeys in a row, Pairing Requests are
/// refused with Repeated Attempts for a wait that doubles with each further failure, from
/// ``firstWaitMilliseconds`` up to ``longestWaitMilliseconds``. As §2.3.6 asks, the wait also
/// shrinks again: every ``quietMilliseconds`` without a failure (counted from the end of the
/// last wait) halves it, and below the first wait the guard starts over. A successful pairing
/// clears it at once.
///
/// One guard per host, not per central: a band pairs with one phone, and an attacker could give
/// every attempt a new random address. The band shows a fresh passkey for every attempt, so a
/// failed one tells nothing about the next; the guard bounds how often one can be tried.
///
/// The clock is milliseconds that wrap every 49.7 days; ``advance(now:)``, called by the host's
/// tick, forgets a wait that is over so that a wrapped clock cannot seem to bring it back.
public struct PairingAttemptGuard: Equatable, Sendable {
    public static let allowedFailures = 3
    public static let firstWaitMilliseconds: UInt32 = 10_000
    public static let longestWaitMilliseconds: UInt32 = 600_000
    public static let quietMilliseconds: UInt32 = 600_000

    public private(set) var consecutiveFailures = 0
    /// The wait imposed by the last failure, or what is left of it after quiet periods (0: none).
    public private(set) var wait: UInt32 = 0
    /// Whether a wait is still running (pairing refused until it ends).
    public private(set) var blocking = false
    var blockedUntil: UInt32 = 0
    /// When the current quiet period started: the end of the last wait, or the last failure.
    var quietSince: UInt32 = 0

    public init() {}

    /// A pairing failed on a wrong passkey at `now`; returns the wait now imposed (0: none yet).
    public mutating func passkeyFailed(now: UInt32) -> UInt32 {
        advance(now: now)
        consecutiveFailures += 1
        if consecutiveFailures >= Self.allowedFailures {
            wait = wait == 0 ? Self.firstWaitMilliseconds : min(wait * 2, Self.longestWaitMilliseconds)
            blocking = true
        }
        blockedUntil = now &+ (blocking ? wait : 0)
        quietSince = blockedUntil
        return blocking ? wait : 0
    }

    /// Milliseconds until pairing is allowed again at `now` (0: allowed).
    public func remaining(now: UInt32) -> UInt32 {
        guard blocking else { return 0 }
        let left = Int32(bitPattern: blockedUntil &- now)
        return left > 0 ? UInt32(left) : 0
    }

    /// Ends a wait that is over and lets quiet periods shrink the wait; the host calls it on
    /// every tick (at least once in 24 days, so differences of the wrapping clock stay signed).
    public mutating func advance(now: UInt32) {
        if blocking, remaining(now: now) == 0 { blocking = false }
        guard !blocking, consecutiveFailures > 0 else { return }
        while Int32(bitPattern: now &- quietSince) >= Int32(Self.quietMilliseconds) {
            quietSince = quietSince &+ Self.quietMilliseconds
            wait /= 2
            if wait < Self.firstWaitMilliseconds {
                succeeded()
                return
            }
        }
    }

    /// A pairing succeeded.
    public mutating func succeeded() {
        consecutiveFailures = 0
        wait = 0
        blocking = false
    }
}
