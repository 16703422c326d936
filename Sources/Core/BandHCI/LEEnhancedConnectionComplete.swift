import BandWire

/// LE Enhanced Connection Complete: the parameters of LE Meta event 0x3E, subevent 0x0A
/// (sent instead of 0x01 when the host enabled it, e.g. with address resolution on).
///
/// Core 5.4 Vol 4 Part E §7.7.65.10; BlueZ `monitor/bt.h`
/// `struct bt_hci_evt_le_enhanced_conn_complete`.
///
/// | bytes | field |
/// |---|---|
/// | u8 | subevent code = 0x0A |
/// | u8 | status (0 = success) |
/// | u16 LE | connection handle (bits 0–11) |
/// | u8 | role |
/// | u8 | peer address type |
/// | 6 | peer address |
/// | 6 | local resolvable private address |
/// | 6 | peer resolvable private address |
/// | u16 LE | connection interval |
/// | u16 LE | peripheral latency |
/// | u16 LE | supervision timeout |
/// | u8 | central clock accuracy |
public struct LEEnhancedConnectionComplete: WireCodable, Hashable, Sendable {
    public static let subevent = LEMetaSubevent.enhancedConnectionComplete

    public var status: UInt8
    public var handle: UInt16
    public var role: UInt8
    public var peer: LEAddress
    public var localResolvablePrivateAddress: BluetoothAddress
    public var peerResolvablePrivateAddress: BluetoothAddress
    public var interval: UInt16
    public var latency: UInt16
    public var supervisionTimeout: UInt16
    public var clockAccuracy: UInt8

    public init(status: UInt8 = 0, handle: UInt16, role: UInt8 = 0, peer: LEAddress,
                localResolvablePrivateAddress: BluetoothAddress = BluetoothAddress(0),
                peerResolvablePrivateAddress: BluetoothAddress = BluetoothAddress(0),
                interval: UInt16 = 24, latency: UInt16 = 0, supervisionTimeout: UInt16 = 72, clockAccuracy: UInt8 = 0) {
        self.status = status
        self.handle = handle
        self.role = role
        self.peer = peer
        self.localResolvablePrivateAddress = localResolvablePrivateAddress
        self.peerResolvablePrivateAddress = peerResolvablePrivateAddress
        self.interval = interval
        self.latency = latency
        self.supervisionTimeout = supervisionTimeout
        self.clockAccuracy = clockAccuracy
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        guard try input.readUInt8("LE subevent code") == Self.subevent.rawValue else {
            throw ParseError(.invalidValue, at: input.offset - 1, field: "LE subevent code")
        }
        status = try input.readUInt8("status")
        handle = try input.readUInt16LE("connection handle") & 0x0FFF
        role = try input.readUInt8("role")
        let type = LEAddressType(rawValue: try input.readUInt8("peer address type"))
        peer = LEAddress(try BluetoothAddress(parsing: &input), type: type)
        localResolvablePrivateAddress = try BluetoothAddress(parsing: &input)
        peerResolvablePrivateAddress = try BluetoothAddress(parsing: &input)
        interval = try input.readUInt16LE("connection interval")
        latency = try input.readUInt16LE("peripheral latency")
        supervisionTimeout = try input.readUInt16LE("supervision timeout")
        clockAccuracy = try input.readUInt8("central clock accuracy")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(Self.subevent.rawValue)
        output.writeUInt8(status)
        output.writeUInt16LE(handle)
        output.writeUInt8(role)
        output.writeUInt8(peer.type.rawValue)
        peer.address.encode(into: &output)
        localResolvablePrivateAddress.encode(into: &output)
        peerResolvablePrivateAddress.encode(into: &output)
        output.writeUInt16LE(interval)
        output.writeUInt16LE(latency)
        output.writeUInt16LE(supervisionTimeout)
        output.writeUInt8(clockAccuracy)
    }
}
