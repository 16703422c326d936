import BandKitSystem
import BandLink
import BandTestSupport
import Glibc
import Synchronization

/// Plays the kernel's Bluetooth sockets for BandBlueZ tests on a machine without Bluetooth.
///
/// `socket(AF_BLUETOOTH, …)` returns one end of a Unix `SOCK_SEQPACKET` pair; the test holds
/// the other end (``kernelEnd``) and reads what BandBlueZ sent and writes what the kernel
/// would answer. `bind`, `connect`, `setsockopt` and `getsockopt` on the Bluetooth
/// descriptor are recorded and answered from a script; everything else runs for real.
final class FakeBluetoothKernel: Sendable {
    struct State {
        var kernelEnds: [Int32] = []
        var bluetoothDescriptors: Set<Int32> = []
        var socketCalls: [(type: Int32, proto: Int32)] = []
        var boundAddresses: [[UInt8]] = []
        var connectedAddresses: [[UInt8]] = []
        var setOptions: [(level: Int32, name: Int32, value: [UInt8])] = []
        var connectResult: Errno? = .inProgress
        var socketError: Int32 = 0
        var socketFailure: Errno?
        var optionValues: [String: [UInt8]] = [:]
        var pollTimesOut = false
        var receiveFailures: [Errno] = []
        var incomingPeers: [[UInt8]] = []
        /// BT_SECURITY set on a connected socket takes effect (the kernel paired).
        var raiseOnConnectedSocketSucceeds = false
        /// Controller indexes the kernel no longer has (the adapter was unplugged): a management
        /// command for one is answered as `hci_mgmt_cmd` does, with a Command Status of Invalid
        /// Index queued on the socket and a `sendmsg` result of 0.
        var goneControllers: Set<UInt16> = []
        /// The link under the sockets went down (`l2cap_sock_teardown_cb`): the socket is
        /// BT_CLOSED, so poll reports POLLHUP; its error (this one) is given once, to whichever
        /// of send and recv asks first; after that a send is ENOTCONN and a recv EAGAIN.
        var tornDown = false
        var pendingLinkError: Errno?
        /// EAGAIN answers given by a torn-down socket. After ``spinLimit`` of them recv fails with
        /// EIO, so a caller that retries for ever ends with a wrong answer instead of hanging.
        var wouldBlockAnswers = 0
        static let spinLimit = 10_000
    }

    let state = Mutex(State())
    static let bluetoothFamily: Int32 = 31

    var kernelEnd: Int32 { state.withLock { $0.kernelEnds.last ?? -1 } }

    var system: SystemCalls {
        var system = SystemCalls.live
        let live = SystemCalls.live
        system.socket = { [self] domain, type, proto in
            guard domain == Self.bluetoothFamily else { return live.socket(domain, type, proto) }
            if let failure = state.withLock({ $0.socketFailure }) { errno = failure.rawValue; return -1 }
            var pair: [Int32] = [-1, -1]
            guard Glibc.socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else { return -1 }
            state.withLock {
                $0.kernelEnds.append(pair[1])
                $0.bluetoothDescriptors.insert(pair[0])
                $0.socketCalls.append((type, proto))
            }
            return pair[0]
        }
        system.bind = { [self] fd, address, length in
            guard isBluetooth(fd) else { return live.bind(fd, address, length) }
            let bytes = Array(UnsafeRawBufferPointer(start: address, count: Int(length)))
            state.withLock { $0.boundAddresses.append(bytes) }
            return 0
        }
        system.connect = { [self] fd, address, length in
            guard isBluetooth(fd) else { return live.connect(fd, address, length) }
            let bytes = Array(UnsafeRawBufferPointer(start: address, count: Int(length)))
            let result = state.withLock { state -> Errno? in
                state.connectedAddresses.append(bytes)
                return state.connectResult
            }
            if let result { errno = result.rawValue; return -1 }
            return 0
        }
        system.setsockopt = { [self] fd, level, name, value, length in
            guard isBluetooth(fd) else { return live.setsockopt(fd, level, name, value, length) }
            let bytes = Array(UnsafeRawBufferPointer(start: value, count: Int(length)))
            state.withLock { state in
                state.setOptions.append((level, name, bytes))
                if level == 274, name == 4, state.raiseOnConnectedSocketSucceeds, !state.connectedAddresses.isEmpty {
                    state.optionValues["274/4"] = [bytes[0], 16]
                }
            }
            return 0
        }
        system.getsockopt = { [self] fd, level, name, value, length in
            guard isBluetooth(fd) else { return live.getsockopt(fd, level, name, value, length) }
            if level == SOL_SOCKET && name == SO_ERROR {
                let code = state.withLock { $0.socketError }
                value!.storeBytes(of: code, as: Int32.self)
                return 0
            }
            guard let bytes = state.withLock({ $0.optionValues["\(level)/\(name)"] }) else { errno = ENOPROTOOPT; return -1 }
            let count = min(bytes.count, Int(length!.pointee))
            bytes.withUnsafeBytes { value!.copyMemory(from: $0.baseAddress!, byteCount: count) }
            length!.pointee = socklen_t(count)
            return 0
        }
        system.listen = { [self] fd, backlog in
            isBluetooth(fd) ? 0 : live.listen(fd, backlog)
        }
        system.accept4 = { [self] fd, address, length, flags in
            guard isBluetooth(fd) else { return live.accept4(fd, address, length, flags) }
            var signal: UInt8 = 0
            guard Glibc.recv(fd, &signal, 1, Int32(MSG_DONTWAIT)) >= 0 else { return -1 }  // EAGAIN when nobody is waiting
            var pair: [Int32] = [-1, -1]
            guard Glibc.socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else { return -1 }
            let peer = state.withLock { state -> [UInt8] in
                state.kernelEnds.append(pair[1])
                state.bluetoothDescriptors.insert(pair[0])
                return state.incomingPeers.removeFirst()
            }
            if let address, let length {
                let count = min(peer.count, Int(length.pointee))
                peer.withUnsafeBytes { UnsafeMutableRawPointer(address).copyMemory(from: $0.baseAddress!, byteCount: count) }
                length.pointee = socklen_t(count)
            }
            return pair[0]
        }
        system.recv = { [self] fd, buffer, count, flags in
            if isBluetooth(fd), let failure = state.withLock({ Self.tornDownReceive(&$0) }) {
                errno = failure.rawValue
                return -1
            }
            if isBluetooth(fd), let failure = state.withLock({ $0.receiveFailures.isEmpty ? nil : $0.receiveFailures.removeFirst() }) {
                errno = failure.rawValue
                return -1
            }
            return live.recv(fd, buffer, count, flags)
        }
        system.send = { [self] fd, bytes, count, flags in
            if isBluetooth(fd), let failure = state.withLock({ $0.tornDown ? ($0.pendingLinkError.take() ?? .notConnected) : nil }) {
                errno = failure.rawValue
                return -1
            }
            if isBluetooth(fd), count >= 6, let bytes {
                let code = bytes.loadUnaligned(as: UInt16.self).littleEndian
                let index = bytes.loadUnaligned(fromByteOffset: 2, as: UInt16.self).littleEndian
                if state.withLock({ $0.goneControllers.contains(index) }) {
                    let kernelEnd = state.withLock { $0.kernelEnds.last ?? -1 }
                    let status: [UInt8] = [0x02, 0x00, UInt8(index & 0xFF), UInt8(index >> 8), 0x03, 0x00,
                                           UInt8(code & 0xFF), UInt8(code >> 8), 0x11]
                    _ = status.withUnsafeBytes { Glibc.send(kernelEnd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                    return 0
                }
            }
            return live.send(fd, bytes, count, flags)
        }
        system.poll = { [self] fds, count, timeout in
            if count == 1, let fds, isBluetooth(fds.pointee.fd), state.withLock({ $0.tornDown }) {
                fds.pointee.revents = Int16(POLLHUP)
                return 1
            }
            if state.withLock({ $0.pollTimesOut }), let fds, isBluetooth(fds.pointee.fd) { return 0 }
            return live.poll(fds, count, timeout)
        }
        return system
    }

    private func isBluetooth(_ fd: Int32) -> Bool { state.withLock { $0.bluetoothDescriptors.contains(fd) } }

    /// What recv gives on a torn-down socket: its error once, then EAGAIN (EIO past the spin limit).
    private static func tornDownReceive(_ state: inout State) -> Errno? {
        guard state.tornDown else { return nil }
        if let error = state.pendingLinkError.take() { return error }
        state.wouldBlockAnswers += 1
        return state.wouldBlockAnswers > State.spinLimit ? .ioError : .wouldBlock
    }

    /// The link goes down with `error` (e.g. ECONNRESET: the central disconnected).
    func tearDownLink(_ error: Errno) {
        state.withLock { $0.tornDown = true; $0.pendingLinkError = error }
    }

    func setOption(level: Int32, name: Int32, to bytes: [UInt8]) {
        state.withLock { $0.optionValues["\(level)/\(name)"] = bytes }
    }

    /// A central connects to the listener whose kernel end is `listenerEnd`; `peer` is its `sockaddr_l2`.
    func incomingConnection(_ peer: [UInt8], on listenerEnd: Int32) {
        state.withLock { $0.incomingPeers.append(peer) }
        deliver([1], on: listenerEnd)
    }

    /// The kernel sends one datagram to BandBlueZ.
    func deliver(_ datagram: [UInt8], on end: Int32? = nil) {
        let fd = end ?? kernelEnd
        let sent = datagram.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        precondition(sent == datagram.count, "fake kernel could not queue \(datagram.count) bytes")
    }

    /// The datagrams BandBlueZ has sent so far (drained). Ends at the first empty read too: once
    /// BandBlueZ has closed its end, recv gives 0 (end of file) for ever, and a loop that took
    /// that for an empty datagram never returned.
    func sent(on end: Int32? = nil) -> [[UInt8]] {
        let fd = end ?? kernelEnd
        var result: [[UInt8]] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            guard count > 0 else { break }
            result.append(Array(buffer[0..<count]))
        }
        return result
    }

    deinit {
        state.withLock { for fd in $0.kernelEnds { Glibc.close(fd) } }
    }
}
