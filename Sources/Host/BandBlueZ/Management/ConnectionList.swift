import BandWire

/// The Return_Parameters of Get Connections (command 0x0015, BlueZ doc/mgmt-api.txt): the peers
/// an adapter has a link to now. BR/EDR entries (Address_Type 0) are skipped: BandKit is LE only.
///
/// | offset | size  | field                                  |
/// |--------|-------|----------------------------------------|
/// | 0      | 2     | Connection_Count *n*, LE               |
/// | 2      | 7 × n | Address (6), Address_Type (1), each    |
public struct ConnectionList: Hashable, Sendable, WireCodable {
    public var peers: [LEAddress]

    public init(peers: [LEAddress]) { self.peers = peers }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        // The count is bounded by the bytes that follow: a count the reply cannot hold fails
        // at the first missing entry.
        let count = Int(try input.readUInt16LE("Connection_Count"))
        peers = []
        for _ in 0..<count {
            let address = try BluetoothAddress(parsing: &input)
            if let type = LEAddressType.fromBlueZ(try input.readUInt8("Address_Type")) {
                peers.append(LEAddress(address, type: type))
            }
        }
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt16LE(UInt16(truncatingIfNeeded: peers.count))
        for peer in peers {
            peer.address.encode(into: &output)
            output.writeUInt8(peer.type.bluezAddressType)
        }
    }
}
