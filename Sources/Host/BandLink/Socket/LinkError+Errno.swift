import BandKitSystem

extension LinkError {
    /// A failed system call: `call` names it (e.g. `"connect"`), `errno` says why.
    public static func system(_ call: String, _ errno: Errno) -> LinkError {
        .system(call: call, errno: errno.rawValue)
    }

    /// The `errno` of a ``system(call:errno:)`` failure, nil for the other cases.
    public var errno: Errno? {
        if case .system(_, let code) = self { return Errno(rawValue: code) }
        return nil
    }
}

/// Hang-ups look different depending on who noticed first; all of them mean ``LinkError/closed``.
extension Errno {
    var meansPeerHungUp: Bool {
        self == .brokenPipe || self == .connectionReset || self == .notConnected || self == .connectionAborted
    }
}
