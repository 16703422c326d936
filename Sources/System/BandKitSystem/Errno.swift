#if canImport(Glibc)
import Glibc
#endif

/// An `errno` value with a Swift name: BandKit's one error number type, as swift-system's `Errno`.
///
/// Open on purpose (a `RawRepresentable` struct, not an enum): the kernel may report codes
/// BandKit has no name for, and they must survive intact into error messages.
public struct Errno: RawRepresentable, Error, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's current `errno`.
    public static var current: Errno { Errno(rawValue: errno) }

    /// The C library's text for the code, e.g. `"No such file or directory"`.
    public var reason: String { String(cString: strerror(rawValue)) }

    public var description: String { "\(reason) (errno \(rawValue))" }

    public static let notPermitted = Errno(rawValue: EPERM)
    public static let noSuchFileOrDirectory = Errno(rawValue: ENOENT)
    public static let interrupted = Errno(rawValue: EINTR)
    public static let ioError = Errno(rawValue: EIO)
    public static let badFileDescriptor = Errno(rawValue: EBADF)
    public static let wouldBlock = Errno(rawValue: EAGAIN)
    public static let noMemory = Errno(rawValue: ENOMEM)
    public static let permissionDenied = Errno(rawValue: EACCES)
    public static let busy = Errno(rawValue: EBUSY)
    public static let fileExists = Errno(rawValue: EEXIST)
    public static let noSuchDevice = Errno(rawValue: ENODEV)
    public static let notDirectory = Errno(rawValue: ENOTDIR)
    public static let invalidArgument = Errno(rawValue: EINVAL)
    public static let noSpace = Errno(rawValue: ENOSPC)
    public static let brokenPipe = Errno(rawValue: EPIPE)
    public static let nameTooLong = Errno(rawValue: ENAMETOOLONG)
    public static let notImplemented = Errno(rawValue: ENOSYS)
    public static let notSocket = Errno(rawValue: ENOTSOCK)
    public static let messageTooLong = Errno(rawValue: EMSGSIZE)
    public static let protocolNotSupported = Errno(rawValue: EPROTONOSUPPORT)
    public static let notSupported = Errno(rawValue: EOPNOTSUPP)
    public static let addressFamilyNotSupported = Errno(rawValue: EAFNOSUPPORT)
    public static let addressInUse = Errno(rawValue: EADDRINUSE)
    public static let addressNotAvailable = Errno(rawValue: EADDRNOTAVAIL)
    public static let networkDown = Errno(rawValue: ENETDOWN)
    public static let connectionAborted = Errno(rawValue: ECONNABORTED)
    public static let connectionReset = Errno(rawValue: ECONNRESET)
    public static let alreadyConnected = Errno(rawValue: EISCONN)
    public static let notConnected = Errno(rawValue: ENOTCONN)
    public static let timedOut = Errno(rawValue: ETIMEDOUT)
    public static let connectionRefused = Errno(rawValue: ECONNREFUSED)
    public static let hostDown = Errno(rawValue: EHOSTDOWN)
    public static let hostUnreachable = Errno(rawValue: EHOSTUNREACH)
    public static let alreadyInProgress = Errno(rawValue: EALREADY)
    public static let inProgress = Errno(rawValue: EINPROGRESS)
    public static let noData = Errno(rawValue: ENODATA)
    public static let noProtocolOption = Errno(rawValue: ENOPROTOOPT)
    public static let remoteIO = Errno(rawValue: EREMOTEIO)
}
