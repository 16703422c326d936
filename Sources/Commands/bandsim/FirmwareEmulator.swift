#if canImport(Glibc)
import Glibc
#endif
import BandKitSystem
import CommandKit

/// One qemu-system-arm (mps2-an386) running a firmware image, its UART0 connected to a Unix
/// stream socket this process listens on in a private temporary directory (QEMU connects as the
/// client, so there is no race on the socket's creation and no retry loop). The image's flash
/// file (semihosting `bandkit-m4.flash`, opened relative to QEMU's working directory) lives in
/// that directory: a symbolic link to `statePath` when one is given, so the minute ring and boot
/// record survive host restarts. ``stop()`` ends QEMU (SIGTERM, waiting for its exit) and
/// removes the directory; it runs on every way out of `bandsim serve --firmware`.
final class FirmwareEmulator {
    let pid: pid_t
    /// The connected UART stream.
    let uart: Int32
    private let directory: String
    private var exitStatus: Int32?
    private var stopped = false

    init(image: String, statePath: String?) throws {
        var template = Array("/tmp/bandsim-firmware-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw RuntimeFailure("bandsim serve: cannot make a directory for QEMU: \(String(cString: strerror(errno)))")
        }
        directory = String(cString: made)
        let socketPath = directory + "/uart.sock"
        let listening = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listening >= 0 else { throw RuntimeFailure("bandsim serve: socket: \(String(cString: strerror(errno)))") }
        defer { close(listening) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(socketPath.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in pathBytes.enumerated() { raw[index] = byte }
            raw[pathBytes.count] = 0
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listening, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(listening, 1) == 0 else {
            let reason = String(cString: strerror(errno))
            Self.removeDirectory(directory)
            throw RuntimeFailure("bandsim serve: listening on \(socketPath): \(reason)")
        }
        let absoluteImage = Self.absolute(image)
        if let statePath {
            guard symlink(Self.absolute(statePath), directory + "/bandkit-m4.flash") == 0 else {
                let reason = String(cString: strerror(errno))
                Self.removeDirectory(directory)
                throw RuntimeFailure("bandsim serve: --state \(statePath): \(reason)")
            }
        }
        // env -C: QEMU's working directory is the private one (its semihosting flash file is there).
        let arguments = ["env", "-C", directory, "qemu-system-arm", "-M", "mps2-an386", "-nographic", "-monitor", "none",
                         "-chardev", "socket,id=uart,path=\(socketPath)", "-serial", "chardev:uart",
                         "-semihosting-config", "enable=on,target=native", "-kernel", absoluteImage]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, 2, 1)   // QEMU's own messages go to our stderr
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        let spawned = posix_spawnp(&child, "env", &actions, nil, &argv, environ)
        guard spawned == 0 else {
            Self.removeDirectory(directory)
            throw RuntimeFailure("bandsim serve: cannot start qemu-system-arm: \(String(cString: strerror(spawned))) (install it: scripts/packages.sh FIRMWARE_PACKAGES)")
        }
        pid = child
        var entry = pollfd(fd: listening, events: Int16(POLLIN), revents: 0)
        let ready = (try? valueOrErrno({ poll(&entry, 1, 10_000) }).get()) ?? -1
        let connected = ready > 0 ? accept(listening, nil, nil) : -1
        if connected >= 0 { _ = fcntl(connected, F_SETFD, FD_CLOEXEC) }
        guard connected >= 0 else {
            kill(child, SIGTERM)
            var status: Int32 = 0
            waitpid(child, &status, 0)
            Self.removeDirectory(directory)
            throw RuntimeFailure("bandsim serve: QEMU did not connect to its UART socket within 10 s (status \(status))")
        }
        uart = connected
    }

    /// Reads what the UART has (the descriptor is readable) and hands it to `handle`.
    /// Throws when QEMU closed the UART: the firmware is gone.
    func readUART<Result>(_ handle: (UnsafeRawBufferPointer) -> [Result]) throws -> [Result] {
        var buffer = [UInt8](repeating: 0, count: 4096)
        switch valueOrErrno({ buffer.withUnsafeMutableBytes { read(uart, $0.baseAddress, $0.count) } }) {
        case .failure(let error): throw RuntimeFailure("bandsim serve: reading the firmware's UART: \(error.reason)")
        case .success(0): throw RuntimeFailure("bandsim serve: the firmware's UART closed (\(describeExit()))")
        case .success(let n): return buffer.withUnsafeBytes { handle(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        }
    }

    func writeUART(_ bytes: [UInt8]) throws {
        var written = 0
        while written < bytes.count {
            switch valueOrErrno({ bytes.withUnsafeBytes { send(uart, $0.baseAddress! + written, $0.count - written, Int32(MSG_NOSIGNAL)) } }) {
            case .success(let n) where n > 0: written += n
            case .success: throw RuntimeFailure("bandsim serve: writing the firmware's UART: \(Errno.ioError.reason)")
            case .failure(let error): throw RuntimeFailure("bandsim serve: writing the firmware's UART: \(error.reason)")
            }
        }
    }

    /// How QEMU ended, if it did (exit 3: the firmware's hard-fault handler).
    func describeExit() -> String {
        if exitStatus == nil {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid { exitStatus = status }
        }
        guard let status = exitStatus else { return "QEMU still running" }
        if status & 0x7F == 0 { return "QEMU exited with status \((status >> 8) & 0xFF)" + ((status >> 8) & 0xFF == 3 ? ": a hard fault" : "") }
        return "QEMU killed by signal \(status & 0x7F)"
    }

    /// Stops QEMU and removes the directory. Idempotent.
    func stop() {
        guard !stopped else { return }
        stopped = true
        close(uart)
        if exitStatus == nil {
            kill(pid, SIGTERM)   // QEMU exits on SIGTERM at once; waitpid blocks until it has
            var status: Int32 = 0
            _ = valueOrErrno { waitpid(pid, &status, 0) }
            exitStatus = status
        }
        Self.removeDirectory(directory)
    }

    deinit { stop() }

    private static func absolute(_ path: String) -> String {
        guard !path.hasPrefix("/"), let cwd = getcwd(nil, 0) else { return path }
        defer { free(cwd) }
        return String(cString: cwd) + "/" + path
    }

    private static func removeDirectory(_ path: String) {
        unlink(path + "/uart.sock")
        unlink(path + "/bandkit-m4.flash")   // the symbolic link (or the throw-away flash), never the --state file
        rmdir(path)
    }
}
