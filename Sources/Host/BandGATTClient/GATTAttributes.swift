import BandGATT
import BandWire

/// A primary service found by discovery (Core 5.4 Vol 3 Part G §4.4.1).
public struct GATTService: Equatable, Sendable {
    public var uuid: BluetoothUUID
    /// The service declaration's handle.
    public var handle: UInt16
    /// The last handle of the service's group.
    public var endHandle: UInt16
    /// Filled by ``GATTClient/discoverCharacteristics(of:)``.
    public var characteristics: [GATTCharacteristic]

    public init(uuid: BluetoothUUID, handle: UInt16, endHandle: UInt16, characteristics: [GATTCharacteristic] = []) {
        self.uuid = uuid
        self.handle = handle
        self.endHandle = endHandle
        self.characteristics = characteristics
    }

    public func characteristic(_ uuid: BluetoothUUID) -> GATTCharacteristic? {
        characteristics.first { $0.uuid == uuid }
    }
}

/// A characteristic found by discovery (Core 5.4 Vol 3 Part G §3.3.1, §4.6.1).
public struct GATTCharacteristic: Equatable, Sendable {
    public var uuid: BluetoothUUID
    /// The characteristic declaration's handle.
    public var declarationHandle: UInt16
    public var valueHandle: UInt16
    public var properties: CharacteristicProperties
    /// The last handle that belongs to this characteristic (its last descriptor).
    public var endHandle: UInt16
    /// Filled by ``GATTClient/discoverDescriptors(of:)``.
    public var descriptors: [GATTDescriptor]

    public init(uuid: BluetoothUUID, declarationHandle: UInt16, valueHandle: UInt16,
                properties: CharacteristicProperties, endHandle: UInt16, descriptors: [GATTDescriptor] = []) {
        self.uuid = uuid
        self.declarationHandle = declarationHandle
        self.valueHandle = valueHandle
        self.properties = properties
        self.endHandle = endHandle
        self.descriptors = descriptors
    }

    public func descriptor(_ uuid: BluetoothUUID) -> GATTDescriptor? {
        descriptors.first { $0.uuid == uuid }
    }
}

/// A characteristic descriptor found by discovery (Core 5.4 Vol 3 Part G §4.7.1).
public struct GATTDescriptor: Equatable, Sendable {
    public var uuid: BluetoothUUID
    public var handle: UInt16
    public init(uuid: BluetoothUUID, handle: UInt16) {
        self.uuid = uuid
        self.handle = handle
    }
}

/// Every primary service of a server, with characteristics and descriptors.
public struct GATTDatabase: Equatable, Sendable {
    public var services: [GATTService]
    public init(services: [GATTService]) { self.services = services }

    public func service(_ uuid: BluetoothUUID) -> GATTService? {
        services.first { $0.uuid == uuid }
    }

    /// The first characteristic `uuid` inside service `service`.
    public func characteristic(_ uuid: BluetoothUUID, in service: BluetoothUUID) -> GATTCharacteristic? {
        self.service(service)?.characteristic(uuid)
    }
}
