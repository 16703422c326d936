import BandKitSystem
import Glibc
import Testing

/// ``Errno``: names for the kernel's codes, the text every error message shows, and codes
/// without a name kept intact.
@Suite struct ErrnoTests {
    @Test func namedCodesMapToTheCLibrarysValues() {
        let pairs: [(Errno, Int32)] = [
            (.notPermitted, EPERM), (.noSuchFileOrDirectory, ENOENT), (.interrupted, EINTR), (.ioError, EIO),
            (.badFileDescriptor, EBADF), (.wouldBlock, EAGAIN), (.permissionDenied, EACCES), (.fileExists, EEXIST),
            (.invalidArgument, EINVAL), (.noSpace, ENOSPC), (.brokenPipe, EPIPE), (.notImplemented, ENOSYS),
            (.messageTooLong, EMSGSIZE), (.connectionReset, ECONNRESET), (.notConnected, ENOTCONN),
            (.timedOut, ETIMEDOUT), (.connectionRefused, ECONNREFUSED), (.hostDown, EHOSTDOWN),
            (.inProgress, EINPROGRESS), (.alreadyInProgress, EALREADY),
        ]
        for (name, code) in pairs { #expect(name.rawValue == code) }
        #expect(Errno.wouldBlock == Errno(rawValue: EWOULDBLOCK))
    }

    @Test func theDescriptionIsTheCLibrarysTextAndTheNumber() {
        #expect(Errno.noSuchFileOrDirectory.description == "No such file or directory (errno 2)")
        #expect(Errno.noSpace.reason == "No space left on device")
    }

    @Test func aCodeWithoutANameSurvivesIntoTheMessage() {
        let unknown = Errno(rawValue: 4321)
        #expect(unknown.rawValue == 4321)
        #expect(unknown.description.hasSuffix("(errno 4321)"))
    }

    @Test func currentReadsTheCallingThreadsErrno() {
        errno = ENOTDIR
        #expect(Errno.current == .notDirectory)
    }
}
