import BandWire

/// Disconnection Complete: the parameters of HCI event 0x05.
///
/// Core 5.4 Vol 4 Part E §7.7.5; BlueZ `monitor/bt.h` `struct bt_hci_evt_disconnect_complete`.
///
/// | bytes | field |
/// |---|---|
/// | u8 | status (0 = success) |
/// | u16 LE | connection handle (bits 0–11) |
/// | u8 | reason (an HCI error code, e.g. 0x13 remote user terminated) |
public struct DisconnectionComplete: WireCodable, Hashable, Sendable {
    public static let code = HCIEventCode.disconnectionComplete

    public var status: UInt8
    public var handle: UInt16
    public var reason: UInt8

    public init(status: UInt8 = 0, handle: UInt16, reason: UInt8 = 0x13) {
        self.status = status
        self.handle = handle
        self.reason = reason
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        status = try input.readUInt8("status")
        handle = try input.readUInt16LE("connection handle") & 0x0FFF
        reason = try input.readUInt8("reason")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(status)
        output.writeUInt16LE(handle)
        output.writeUInt8(reason)
    }
}
