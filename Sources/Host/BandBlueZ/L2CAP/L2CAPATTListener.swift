import BandKitSystem
import BandLink
import BandWire
internal import CBlueZ
#if canImport(Glibc)
import Glibc
#endif

/// The peripheral side of the LE ATT channel: listens on CID 4 of one adapter and hands each
/// central that connects to the GATT server as an ``L2CAPATTLink`` (how the simulated band
/// serves over a real or virtual radio). Advertising is separate (``BlueZAdapter/startAdvertising(_:)``).
public final class L2CAPATTListener {
    public let adapter: BluetoothAddress
    private var descriptor: Int32
    private let system: SystemCalls

    /// Binds to `adapter` (its own address; see ``BlueZAdapter/address()``) and listens.
    public init(adapter: BluetoothAddress, addressType: LEAddressType = .public, backlog: Int32 = 1,
                system: SystemCalls = .live) throws(LinkError) {
        self.adapter = adapter
        self.system = system
        descriptor = try system.bluetoothSocket(type: SocketFlags.seqPacket | SocketFlags.nonBlocking, protocol: BluetoothSocket.protocolL2CAP)
        let local = L2CAPSocketAddress(adapter, type: addressType)
        var failure: LinkError?
        if case .failure(let error) = local.withRawAddress({ system.bind(descriptor, address: $0) }) {
            failure = .system("bind L2CAP ATT to \(adapter)", error)
        } else if case .failure(let error) = system.listen(descriptor, backlog: backlog) {
            failure = .system("listen on L2CAP ATT", error)
        }
        if let failure {
            _ = system.close(descriptor: descriptor)
            descriptor = -1
            throw failure
        }
    }

    /// Readable when a central has connected.
    public var pollDescriptor: Int32 { descriptor }

    /// Waits up to `timeout` (nil: forever) for a central; nil if none came.
    public func accept(timeout: Duration?) throws(LinkError) -> L2CAPATTLink? {
        guard descriptor >= 0 else { throw .closed }
        let deadline = timeout.map { ContinuousClock.now.advanced(by: $0) }
        while true {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let remaining = deadline.map { max(.zero, $0 - ContinuousClock.now) }
            switch system.pollOne(&entry, timeout: remaining) {
            case .success(0): return nil
            case .success: break
            case .failure(let error): throw .system("poll", error)
            }
            var peer = [UInt8](repeating: 0, count: MemoryLayout<sockaddr_l2>.size)
            let accepted = peer.withUnsafeMutableBytes { raw in
                system.accept(descriptor, peerAddress: raw, flags: SocketFlags.closeOnExec | SocketFlags.nonBlocking)
            }
            switch accepted {
            case .success(let fd):
                let address = peer.withUnsafeBytes { L2CAPSocketAddress(raw: $0).address }
                return L2CAPATTLink(adopting: fd, peer: address, system: system)
            case .failure(.wouldBlock), .failure(.connectionAborted):
                continue
            case .failure(let error):
                throw .system("accept on L2CAP ATT", error)
            }
        }
    }

    /// Stops listening. Idempotent.
    public func close() {
        guard descriptor >= 0 else { return }
        _ = system.close(descriptor: descriptor)
        descriptor = -1
    }

    deinit { close() }
}
