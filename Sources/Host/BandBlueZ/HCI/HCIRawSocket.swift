import BandHCI
import BandKitSystem
import BandLink
import BandWire
internal import CBlueZ
#if canImport(Glibc)
import Glibc
#endif

/// A raw HCI socket bound to one adapter (`HCI_CHANNEL_RAW`): sends HCI commands and reads
/// the events the filter lets through, as `hcitool` does. Needs `CAP_NET_RAW` (root, or
/// `setcap cap_net_raw,cap_net_admin+eip`).
///
/// What libbluetooth's `hci_open_dev` + `hci_send_req` do, but through ``SystemCalls`` so
/// tests script the controller, and with every wait a `poll()` against one deadline.
public final class HCIRawSocket {
    public let deviceIndex: UInt16
    private let socket: PacketSocket
    private var buffer = [UInt8](repeating: 0, count: 260)  // 3-byte header + 255 parameters, +2 spare

    public init(deviceIndex: UInt16, events: [HCIEventCode] = [.commandComplete, .commandStatus, .leMeta],
                system: SystemCalls = .live) throws(LinkError) {
        self.deviceIndex = deviceIndex
        let fd = try system.bluetoothSocket(type: SocketFlags.raw, protocol: BluetoothSocket.protocolHCI)
        socket = PacketSocket(adopting: fd, system: system)
        let address = HCISocketAddress(device: deviceIndex, channel: UInt16(HCI_CHANNEL_RAW))
        if case .failure(let error) = address.withRawAddress({ system.bind(fd, address: $0) }) {
            throw .system("bind hci\(deviceIndex)", error)
        }
        let filter = HCIFilter(events: events)
        if case .failure(let error) = system.setOption(fd, level: BluetoothSocket.levelHCI, name: BluetoothSocket.optionHCIFilter, value: filter.storage) {
            throw .system("setsockopt(HCI_FILTER)", error)
        }
    }

    public var pollDescriptor: Int32 { socket.descriptor }

    /// Sends `command` and waits for its Command Complete (return parameters) or a failed
    /// Command Status. Other events that arrive meanwhile go to `otherEvent`.
    public func run(_ command: HCICommandPacket, timeout: Duration = .seconds(2),
                    otherEvent: (HCIEventPacket) -> Void = { _ in }) throws(LinkError) -> HCICommandComplete {
        var out = [UInt8](repeating: 0, count: 4 + command.parameters.count)
        let sent: Result<Void, LinkError> = out.withUnsafeMutableBytes { raw in
            var writer = ByteWriter(raw)
            command.encode(into: &writer)
            do throws(LinkError) {
                try socket.send(UnsafeRawBufferPointer(writer.written), timeout: timeout)
                return .success(())
            } catch { return .failure(error) }
        }
        try sent.get()
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            let remaining = max(.zero, deadline - ContinuousClock.now)
            guard let event = try nextEvent(timeout: remaining) else {
                throw .system("\(command.opcode) on hci\(deviceIndex) (no reply)", .timedOut)
            }
            switch event.body {
            case .commandComplete(let complete) where complete.opcode == command.opcode:
                return complete
            case .commandStatus(let status) where status.opcode == command.opcode && status.status != .success:
                throw .system("\(command.opcode) on hci\(deviceIndex): \(status.status)", .ioError)
            default:
                otherEvent(event)
            }
        }
    }

    /// Like ``run(_:timeout:otherEvent:)``, and fails unless the returned status is Success.
    public func runExpectingSuccess(_ command: HCICommandPacket, timeout: Duration = .seconds(2),
                                    otherEvent: (HCIEventPacket) -> Void = { _ in }) throws(LinkError) {
        let complete = try run(command, timeout: timeout, otherEvent: otherEvent)
        guard let status = complete.status, status == .success else {
            throw .system("\(command.opcode) on hci\(deviceIndex): \(complete.status.map(String.init(describing:)) ?? "empty reply")", .ioError)
        }
    }

    /// The next event, or nil after `timeout`. An event that does not decode is an error
    /// naming the byte offset (``LinkError/system(call:errno:)`` with `EBADMSG`).
    public func nextEvent(timeout: Duration?) throws(LinkError) -> HCIEventPacket? {
        let result: Result<HCIEventPacket?, LinkError> = buffer.withUnsafeMutableBytes { raw in
            do throws(LinkError) {
                guard let length = try socket.receive(into: raw, timeout: timeout) else { return .success(nil) }
                do throws(ParseError) {
                    return .success(try HCIEventPacket(parsingAll: UnsafeRawBufferPointer(rebasing: raw[0..<length])))
                } catch {
                    return .failure(.system("HCI event from hci\(deviceIndex): \(error)", Errno(rawValue: EBADMSG)))
                }
            } catch { return .failure(error) }
        }
        return try result.get()
    }

    public func close() { socket.close() }
}
