#if canImport(Glibc)
import Glibc
#endif
import BandKitSystem

/// Opens the descriptor a controller speaks H4 on: a tty set raw (termios, 8N1, the rate and
/// RTS/CTS of ``SerialSettings``) or a connected TCP socket with Nagle off (an H4 packet is
/// sent as soon as it is written). The descriptor is blocking for writes and read only when
/// `poll` says so.
public enum ControllerPort {
    public static func open(_ address: ControllerAddress, serial: SerialSettings = SerialSettings()) -> Result<Int32, ControllerPortError> {
        switch address {
        case .serial(let path): openSerial(path, settings: serial)
        case .tcp(let host, let port): connectTCP(host: host, port: port)
        }
    }

    static func openSerial(_ path: String, settings: SerialSettings) -> Result<Int32, ControllerPortError> {
        let fd = Glibc.open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(ControllerPortError(what: path, call: "open", errno: Errno(rawValue: errno))) }
        guard isatty(fd) == 1 else {
            Glibc.close(fd)
            return .failure(ControllerPortError(what: path, call: "open", detail: "not a terminal (a controller's UART or pty)"))
        }
        var options = termios()
        guard tcgetattr(fd, &options) == 0 else {
            let error = Errno(rawValue: errno)
            Glibc.close(fd)
            return .failure(ControllerPortError(what: path, call: "tcgetattr", errno: error))
        }
        cfmakeraw(&options)
        options.c_cflag &= ~tcflag_t(CSTOPB | PARENB | CSIZE)
        options.c_cflag |= tcflag_t(CS8 | CLOCAL | CREAD)
        if settings.hardwareFlowControl { options.c_cflag |= tcflag_t(CRTSCTS) } else { options.c_cflag &= ~tcflag_t(CRTSCTS) }
        options.c_cc.6 = 1   // VMIN: a read returns what is there
        options.c_cc.5 = 0   // VTIME
        let speed = speedConstant(settings.baudRate)
        guard cfsetispeed(&options, speed) == 0, cfsetospeed(&options, speed) == 0, tcsetattr(fd, TCSANOW, &options) == 0 else {
            let error = Errno(rawValue: errno)
            Glibc.close(fd)
            return .failure(ControllerPortError(what: path, call: "tcsetattr", errno: error))
        }
        tcflush(fd, TCIOFLUSH)
        return .success(fd)
    }

    static func speedConstant(_ rate: Int) -> speed_t {
        switch rate {
        case 115_200: speed_t(B115200)
        case 230_400: speed_t(B230400)
        case 460_800: speed_t(B460800)
        case 921_600: speed_t(B921600)
        default: speed_t(B1000000)
        }
    }

    static func connectTCP(host: String, port: UInt16) -> Result<Int32, ControllerPortError> {
        let what = "tcp:\(host):\(port)"
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            return .failure(ControllerPortError(what: what, call: "getaddrinfo", detail: String(cString: gai_strerror(status))))
        }
        defer { freeaddrinfo(list) }
        var lastError = Errno(rawValue: ECONNREFUSED)
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            let fd = socket(current.pointee.ai_family, current.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), current.pointee.ai_protocol)
            if fd >= 0 {
                if connect(fd, current.pointee.ai_addr, current.pointee.ai_addrlen) == 0 {
                    var on: Int32 = 1
                    setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
                    return .success(fd)
                }
                lastError = Errno(rawValue: errno)
                Glibc.close(fd)
            } else {
                lastError = Errno(rawValue: errno)
            }
            entry = current.pointee.ai_next
        }
        return .failure(ControllerPortError(what: what, call: "connect", errno: lastError))
    }
}

/// The controller's port could not be opened: which, the call, and why.
public struct ControllerPortError: Error, Equatable, Sendable, CustomStringConvertible {
    public var what: String
    public var call: String
    public var detail: String

    init(what: String, call: String, errno: Errno) {
        self.init(what: what, call: call, detail: "\(errno)")
    }

    init(what: String, call: String, detail: String) {
        self.what = what
        self.call = call
        self.detail = detail
    }

    public var description: String { "\(call) \(what): \(detail)" }
}
