import BandATT
import BandGATT
import BandGATTServer
import BandWire

/// The GATT database of a simulated third-party peer (``InfiniTimePeer``, ``HeartRateStrapPeer``):
/// services and characteristics built once (``PeerTableBuilder``), values the peer's model sets
/// (``setValue(_:_:)``), one Client Characteristic Configuration per notifying characteristic.
///
/// Served by the one `GATTServer`; this type owns only data and permissions: a read of a
/// characteristic without the read property gets Read Not Permitted, a write without write
/// property Write Not Permitted, a CCCD write of other than 2 bytes Invalid Attribute Value
/// Length (Core 5.4 Vol 3 Part G §3.3.3.3), and a value write the peer's ``validate`` check
/// refuses gets that check's error. Accepted value writes come back as ``PeerWrite`` for the
/// peer to act on after the response is out.
public struct PeerAttributeTable: GATTAttributeSource {
    public typealias WriteEffect = PeerWrite

    /// One row, in handle order (handle = index + 1).
    struct Row {
        var attribute: GATTServerAttribute
        var value: [UInt8]
        var role: Role
    }

    enum Role {
        case declaration
        /// The value of characteristic `index` in ``characteristics``.
        case value(Int)
        /// The CCCD of characteristic `index`.
        case configuration(Int)
    }

    /// A characteristic of the table and what the connected client configured.
    public struct Characteristic: Sendable {
        public var uuid: BluetoothUUID
        public var properties: CharacteristicProperties
        public var valueHandle: UInt16
        public var notificationsEnabled = false
    }

    var rows: [Row] = []
    public internal(set) var characteristics: [Characteristic] = []
    /// Checks a value write before it is applied: the ATT error to answer, or nil to accept.
    public var validate: (BluetoothUUID, [UInt8]) -> ATTErrorCode? = { _, _ in nil }

    public var attributeCount: Int { rows.count }

    public func attribute(at index: Int) -> GATTServerAttribute { rows[index].attribute }

    public func firstIndex(atOrAfter handle: UInt16) -> Int { min(max(Int(handle), 1) - 1, rows.count) }

    public func withValue<R>(at index: Int, _ body: (UnsafeRawBufferPointer) -> R) throws(ATTErrorCode) -> R {
        let row = rows[index]
        if case .value(let characteristic) = row.role, !characteristics[characteristic].properties.contains(.read) {
            throw .readNotPermitted
        }
        return row.value.withUnsafeBytes(body)
    }

    public mutating func write(_ value: UnsafeRawBufferPointer, at index: Int, withResponse: Bool) throws(ATTErrorCode) -> PeerWrite {
        let bytes = [UInt8](value)
        switch rows[index].role {
        case .declaration:
            throw .writeNotPermitted
        case .configuration(let characteristic):
            guard bytes.count == 2 else { throw .invalidAttributeValueLength }
            rows[index].value = bytes
            characteristics[characteristic].notificationsEnabled = bytes[0] & 0x01 != 0
            return .configured(characteristics[characteristic].uuid, notifications: bytes[0] & 0x01 != 0)
        case .value(let characteristic):
            let uuid = characteristics[characteristic].uuid
            let properties = characteristics[characteristic].properties
            guard properties.contains(withResponse ? .write : .writeWithoutResponse) || properties.contains(.write) else {
                throw .writeNotPermitted
            }
            if let error = validate(uuid, bytes) { throw error }
            rows[index].value = bytes
            return .value(uuid, bytes)
        }
    }

    // MARK: For the peer

    /// Sets the value a read returns (and a notification carries).
    public mutating func setValue(_ uuid: BluetoothUUID, _ bytes: [UInt8]) {
        guard let characteristic = characteristics.firstIndex(where: { $0.uuid == uuid }) else {
            preconditionFailure("no characteristic \(uuid) in the peer's table")
        }
        let handle = characteristics[characteristic].valueHandle
        rows[Int(handle) - 1].value = bytes
    }

    public func value(of uuid: BluetoothUUID) -> [UInt8]? {
        characteristics.first { $0.uuid == uuid }.map { rows[Int($0.valueHandle) - 1].value }
    }

    public func valueHandle(of uuid: BluetoothUUID) -> UInt16? {
        characteristics.first { $0.uuid == uuid }?.valueHandle
    }

    /// Whether the connected client enabled notifications of `uuid`.
    public func notifies(_ uuid: BluetoothUUID) -> Bool {
        characteristics.first { $0.uuid == uuid }?.notificationsEnabled ?? false
    }

    /// A new connection starts with every CCCD cleared (an unbonded client; Core 5.4 Vol 3 Part G §3.3.3.3).
    public mutating func connectionStarted() {
        for index in characteristics.indices { characteristics[index].notificationsEnabled = false }
        for index in rows.indices { if case .configuration = rows[index].role { rows[index].value = [0, 0] } }
    }
}

/// What an accepted write did.
public enum PeerWrite: Equatable, Sendable {
    /// A characteristic value was written.
    case value(BluetoothUUID, [UInt8])
    /// A CCCD was written.
    case configured(BluetoothUUID, notifications: Bool)
}

/// Builds a ``PeerAttributeTable`` in handle order: `service(_:)`, then its characteristics.
public struct PeerTableBuilder {
    private var table = PeerAttributeTable()
    private var serviceRow: Int?

    public init() {}

    public mutating func service(_ uuid: BluetoothUUID) {
        closeService()
        serviceRow = table.rows.count
        let handle = UInt16(table.rows.count + 1)
        table.rows.append(.init(attribute: GATTServerAttribute(handle: handle, type: GATTUUID.Declaration.primaryService, serviceUUID: uuid),
                                value: ServiceDeclaration(uuid: uuid).encodedBytes(capacity: 16), role: .declaration))
    }

    public mutating func characteristic(_ uuid: BluetoothUUID, _ properties: CharacteristicProperties, value: [UInt8]) {
        precondition(serviceRow != nil, "a characteristic outside a service")
        let declaration = UInt16(table.rows.count + 1)
        let index = table.characteristics.count
        table.rows.append(.init(attribute: GATTServerAttribute(handle: declaration, type: GATTUUID.Declaration.characteristic),
                                value: CharacteristicDeclaration(properties: properties, valueHandle: declaration + 1, uuid: uuid).encodedBytes(capacity: 19),
                                role: .declaration))
        table.rows.append(.init(attribute: GATTServerAttribute(handle: declaration + 1, type: uuid), value: value, role: .value(index)))
        table.characteristics.append(.init(uuid: uuid, properties: properties, valueHandle: declaration + 1))
        if properties.contains(.notify) || properties.contains(.indicate) {
            table.rows.append(.init(attribute: GATTServerAttribute(handle: declaration + 2, type: GATTUUID.Descriptor.clientCharacteristicConfiguration),
                                    value: [0, 0], role: .configuration(index)))
        }
    }

    private mutating func closeService() {
        guard let start = serviceRow else { return }
        table.rows[start].attribute.groupEnd = UInt16(table.rows.count)
    }

    public mutating func build() -> PeerAttributeTable {
        closeService()
        serviceRow = nil
        return table
    }
}
