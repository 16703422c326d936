import BandATT
import BandGATT
import BandWire

/// A service declaration seen in a trace: a Read By Group Type or Find By Type Value
/// response named its handle range and UUID (Core 5.4 Vol 3 Part G §4.4).
public struct RecordedService: Hashable, Sendable {
    public var handle: UInt16
    public var endGroupHandle: UInt16
    public var uuid: BluetoothUUID
    /// False for a secondary service (attribute type 0x2801).
    public var isPrimary: Bool

    public init(handle: UInt16, endGroupHandle: UInt16, uuid: BluetoothUUID, isPrimary: Bool = true) {
        self.handle = handle
        self.endGroupHandle = endGroupHandle
        self.uuid = uuid
        self.isPrimary = isPrimary
    }

    public func contains(_ attribute: UInt16) -> Bool { attribute >= handle && attribute <= endGroupHandle }
}

/// An include declaration (0x2802) seen in a Read By Type response (Core 5.4 Vol 3 Part G §4.5.1).
public struct RecordedInclude: Hashable, Sendable {
    public var handle: UInt16
    public var includedServiceHandle: UInt16
    public var endGroupHandle: UInt16
    /// Present only for 16-bit service UUIDs, as on the wire (§3.2).
    public var uuid: BluetoothUUID?

    public init(handle: UInt16, includedServiceHandle: UInt16, endGroupHandle: UInt16, uuid: BluetoothUUID?) {
        self.handle = handle
        self.includedServiceHandle = includedServiceHandle
        self.endGroupHandle = endGroupHandle
        self.uuid = uuid
    }
}

/// A characteristic declaration (0x2803) seen in a Read By Type response (Core 5.4 Vol 3 Part G §4.6).
public struct RecordedCharacteristic: Hashable, Sendable {
    /// Handle of the declaration; the value follows at ``valueHandle``.
    public var handle: UInt16
    public var properties: CharacteristicProperties
    public var valueHandle: UInt16
    public var uuid: BluetoothUUID

    public init(handle: UInt16, properties: CharacteristicProperties, valueHandle: UInt16, uuid: BluetoothUUID) {
        self.handle = handle
        self.properties = properties
        self.valueHandle = valueHandle
        self.uuid = uuid
    }

    /// The declaration's own value, byte for byte as a server returns it.
    public var declaration: CharacteristicDeclaration {
        CharacteristicDeclaration(properties: properties, valueHandle: valueHandle, uuid: uuid)
    }
}

/// A descriptor: an attribute inside a characteristic's range that is neither its
/// declaration nor its value, as a Find Information response named it (§4.7.1).
public struct RecordedDescriptor: Hashable, Sendable {
    public var handle: UInt16
    public var uuid: BluetoothUUID

    public init(handle: UInt16, uuid: BluetoothUUID) {
        self.handle = handle
        self.uuid = uuid
    }

    public var isClientCharacteristicConfiguration: Bool {
        uuid == GATTUUID.Descriptor.clientCharacteristicConfiguration
    }
}

/// An attribute value as far as the trace showed it.
///
/// Long values arrive in pieces (a Read Response of ATT_MTU − 1 bytes, then Read Blob
/// responses at increasing offsets, Core 5.4 Vol 3 Part G §4.8.3); ``isComplete`` is false
/// while the last piece seen was full-size, i.e. more may exist than the trace holds.
public struct RecordedValue: Hashable, Sendable {
    public var bytes: [UInt8]
    public var isComplete: Bool

    public init(bytes: [UInt8], isComplete: Bool = true) {
        self.bytes = bytes
        self.isComplete = isComplete
    }
}
