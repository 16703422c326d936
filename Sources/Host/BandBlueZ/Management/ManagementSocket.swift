import BandKitSystem
import BandLink
import BandWire

/// The BlueZ management socket (`HCI_CHANNEL_CONTROL`): how bluetoothd drives the kernel's
/// Bluetooth stack, and how BandKit does without bluetoothd (BlueZ doc/mgmt-api.txt).
///
/// Commands are answered by a Command Complete or Command Status event for the same
/// opcode and controller; ``perform(_:controllerIndex:parameters:timeout:)`` waits for that
/// reply in `poll()` and queues every other event meanwhile, so ``nextEvent(timeout:)``
/// never loses one (a pairing request can arrive while a command is in flight).
/// Needs `CAP_NET_ADMIN` for commands that change settings.
public final class ManagementSocket {
    private let socket: PacketSocket
    private var queued: [ManagementEvent] = []
    private var buffer = [UInt8](repeating: 0, count: 4096)

    public init(system: SystemCalls = .live) throws(LinkError) {
        let fd = try system.bluetoothSocket(type: SocketFlags.raw, protocol: BluetoothSocket.protocolHCI)
        socket = PacketSocket(adopting: fd, system: system)
        if case .failure(let error) = HCISocketAddress.management.withRawAddress({ system.bind(fd, address: $0) }) {
            throw .system("bind(HCI_CHANNEL_CONTROL)", error)
        }
    }

    /// Readable when an event is waiting in the kernel. Check ``hasQueuedEvents`` too: events
    /// read while a command was in flight wait in this object, not in the socket.
    public var pollDescriptor: Int32 { socket.descriptor }
    public var hasQueuedEvents: Bool { !queued.isEmpty }

    /// Sends a command without waiting for its reply (the reply arrives as an event).
    ///
    /// A command the kernel refuses before reading it (an adapter index that no longer exists:
    /// the adapter was unplugged, or its driver reset) is answered with a Command Status event
    /// and a `sendmsg` result of 0 (net/bluetooth/hci_sock.c, `hci_mgmt_cmd`); this throws
    /// ``LinkError/system(call:errno:)`` with `ENODEV` naming the command and the adapter, never
    /// the "Message too long" a short datagram send would otherwise mean.
    public func send(_ packet: ManagementPacket) throws(LinkError) {
        guard try sendCommand(packet) else { throw Self.refused(packet.code, controllerIndex: packet.controllerIndex) }
    }

    /// Sends one command; false when the kernel refused it without reading it (its status event follows).
    private func sendCommand(_ packet: ManagementPacket) throws(LinkError) -> Bool {
        let bytes = packet.bytes
        let result: Result<Int, LinkError> = bytes.withUnsafeBytes { raw in
            do throws(LinkError) {
                return .success(try socket.send(raw, timeout: .seconds(2), acceptsShortSend: true))
            } catch { return .failure(error) }
        }
        return try result.get() == bytes.count
    }

    /// The error for a command the kernel refused unread; on a controller that is the adapter gone.
    static func refused(_ code: UInt16, controllerIndex: UInt16) -> LinkError {
        let what = "mgmt \(ManagementOpcode(rawValue: code))"
        guard controllerIndex != ManagementPacket.noController else {
            return .system("\(what): refused by the kernel", .invalidArgument)
        }
        return adapterGone(controllerIndex, what: what)
    }

    /// `hciN` no longer exists in the kernel: unplugged, powered down by rfkill's hard switch, or
    /// its driver reset. Said in those words, because "Invalid Index" tells a user nothing.
    static func adapterGone(_ controllerIndex: UInt16, what: String) -> LinkError {
        .system("\(what) on hci\(controllerIndex) (adapter gone: Invalid Index)", .noSuchDevice)
    }

    /// Sends a command and waits for its reply; returns the Return_Parameters of a successful
    /// Command Complete. A failure status is ``LinkError/system(call:errno:)`` naming the command,
    /// the controller and the status; Invalid Index on a controller says the adapter is gone.
    @discardableResult
    public func perform(_ opcode: ManagementOpcode, controllerIndex: UInt16, parameters: [UInt8] = [],
                        timeout: Duration = .seconds(5)) throws(LinkError) -> [UInt8] {
        // A refused command still gets its Command Status event: wait for it, it says why.
        _ = try sendCommand(ManagementPacket(opcode, controllerIndex: controllerIndex, parameters: parameters))
        let deadline = ContinuousClock.now.advanced(by: timeout)
        let what = "mgmt \(opcode)" + (controllerIndex == ManagementPacket.noController ? "" : " on hci\(controllerIndex)")
        func failure(_ status: ManagementStatus) -> LinkError {
            if status == .invalidIndex, controllerIndex != ManagementPacket.noController {
                return Self.adapterGone(controllerIndex, what: "mgmt \(opcode)")
            }
            return .system("\(what): \(status)", status.errno)
        }
        while true {
            let remaining = max(.zero, deadline - ContinuousClock.now)
            guard let event = try receiveEvent(timeout: remaining) else { throw .system("\(what) (no reply)", .timedOut) }
            switch event {
            case .commandComplete(opcode, controllerIndex, let status, let returned):
                guard status == .success else { throw failure(status) }
                return returned
            case .commandStatus(opcode, controllerIndex, let status) where status != .success:
                throw failure(status)
            default:
                queued.append(event)
            }
        }
    }

    /// The next event (queued ones first), or nil after `timeout`.
    public func nextEvent(timeout: Duration?) throws(LinkError) -> ManagementEvent? {
        if !queued.isEmpty { return queued.removeFirst() }
        return try receiveEvent(timeout: timeout)
    }

    private func receiveEvent(timeout: Duration?) throws(LinkError) -> ManagementEvent? {
        let result: Result<ManagementEvent?, LinkError> = buffer.withUnsafeMutableBytes { raw in
            do throws(LinkError) {
                guard let length = try socket.receive(into: raw, timeout: timeout) else { return .success(nil) }
                do throws(ParseError) {
                    let packet = try ManagementPacket(parsingAll: UnsafeRawBufferPointer(rebasing: raw[0..<length]))
                    return .success(try ManagementEvent(packet))
                } catch {
                    return .failure(.system("mgmt event: \(error)", Errno(rawValue: 74)))  // EBADMSG
                }
            } catch { return .failure(error) }
        }
        return try result.get()
    }

    public func close() { socket.close() }
}
