import BandWire

/// One GATT server's attributes as far as a trace revealed them: handle → attribute type.
///
/// The type of a characteristic's value attribute is the characteristic's UUID (0x2A37 for
/// Heart Rate Measurement); declarations are 0x2800/0x2801/0x2803, descriptors their own
/// UUID (0x2902 CCCD). Learned the way Wireshark's `packet-btatt.c` does it (`save_handle`):
/// from Read By Group Type, Read By Type and Find Information responses.
public struct AttributeTable: Sendable {
    private var types: [UInt16: BluetoothUUID] = [:]

    public init() {}

    public var count: Int { types.count }
    public var isEmpty: Bool { types.isEmpty }

    @inlinable
    public func type(of handle: UInt16) -> BluetoothUUID? { lookup(handle) }

    @usableFromInline
    func lookup(_ handle: UInt16) -> BluetoothUUID? { types[handle] }

    public mutating func learn(_ handle: UInt16, is type: BluetoothUUID) {
        types[handle] = type
    }

    /// Every known handle in ascending order (cold path: tests, summaries).
    public var entries: [(handle: UInt16, type: BluetoothUUID)] {
        types.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}
