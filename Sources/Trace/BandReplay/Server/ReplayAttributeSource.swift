import BandATT
import BandGATT
import BandGATTServer
import BandWire

/// A recorded database as the attribute source of the one `GATTServer`: the reconstructed
/// table, the values the trace showed, and the CCCDs the live client configured.
///
/// Where the trace is silent the answers are the ones a real server gives for something it
/// does not have:
///
/// | attribute | read | write |
/// |---|---|---|
/// | service, include, characteristic declaration | its declaration bytes | Write Not Permitted |
/// | CCCD | what the live client wrote (0000 at first) | 2 bytes: stored per live client; other lengths: Invalid Attribute Value Length |
/// | value or other descriptor the server refused in the trace | the recorded error | |
/// | value or descriptor read in the trace | the recorded bytes | |
/// | value or descriptor never read | Read Not Permitted | |
/// | characteristic value with a Write property | | accepted (the value is not stored) |
/// | anything else | | Write Not Permitted |
public struct ReplayAttributeSource: GATTAttributeSource {
    /// What an accepted write did.
    public enum WriteEffect: Hashable, Sendable {
        /// A characteristic value was written (nothing is stored).
        case accepted
        /// The client set a CCCD, of the characteristic at `valueHandle` (nil if unknown).
        case configured(valueHandle: UInt16?, configuration: ClientCharacteristicConfiguration)
    }

    public let table: ReplayAttributeTable
    /// The live client's CCCD values, by descriptor handle.
    public private(set) var configurations: [UInt16: ClientCharacteristicConfiguration] = [:]
    /// Value handle → its CCCD handle, from the database.
    private let cccdByValueHandle: [UInt16: UInt16]

    public init(database: RecordedGATTDatabase) {
        table = ReplayAttributeTable(database)
        var map: [UInt16: UInt16] = [:]
        for attribute in table.attributes {
            if case .descriptor(let descriptor, let valueHandle?) = attribute.role, descriptor.isClientCharacteristicConfiguration {
                map[valueHandle] = descriptor.handle
            }
        }
        cccdByValueHandle = map
    }

    /// The CCCD handle of the characteristic at `valueHandle`, if the database has one.
    public func clientConfigurationHandle(forValueHandle valueHandle: UInt16) -> UInt16? { cccdByValueHandle[valueHandle] }

    /// What the live client enabled for the characteristic at `valueHandle`; nil when the
    /// database knows no CCCD for it.
    public func configuration(forValueHandle valueHandle: UInt16) -> ClientCharacteristicConfiguration? {
        cccdByValueHandle[valueHandle].map { configurations[$0] ?? [] }
    }

    // MARK: GATTAttributeSource

    public var attributeCount: Int { table.attributes.count }

    public func attribute(at index: Int) -> GATTServerAttribute {
        let attribute = table.attributes[index]
        if case .service(let service) = attribute.role {
            return GATTServerAttribute(handle: attribute.handle, type: attribute.type, serviceUUID: service.uuid, groupEnd: service.endGroupHandle)
        }
        return GATTServerAttribute(handle: attribute.handle, type: attribute.type)
    }

    public func firstIndex(atOrAfter handle: UInt16) -> Int { table.firstIndex(atOrAfter: handle) }

    public func withValue<R>(at index: Int, _ body: (UnsafeRawBufferPointer) -> R) throws(ATTErrorCode) -> R {
        let bytes = try value(of: table.attributes[index])
        return bytes.withUnsafeBytes(body)
    }

    /// The bytes a read of `attribute` returns now, or the error it gets.
    public func value(of attribute: ReplayAttributeTable.Attribute) throws(ATTErrorCode) -> [UInt8] {
        let database = table.database
        switch attribute.role {
        case .service(let service):
            return ServiceDeclaration(uuid: service.uuid).encodedBytes(capacity: 16)
        case .include(let include):
            let uuid = include.uuid?.shortValue == nil ? nil : include.uuid
            return IncludeDeclaration(includedServiceHandle: include.includedServiceHandle,
                                      endGroupHandle: include.endGroupHandle, uuid: uuid).encodedBytes(capacity: 6)
        case .characteristicDeclaration(let characteristic):
            return characteristic.declaration.encodedBytes(capacity: 19)
        case .characteristicValue, .descriptor:
            if case .descriptor(let descriptor, _) = attribute.role, descriptor.isClientCharacteristicConfiguration {
                return (configurations[descriptor.handle] ?? []).encodedBytes(capacity: 2)
            }
            if let error = database.readErrors[attribute.handle] { throw error }
            if let value = database.values[attribute.handle] { return value.bytes }
            throw .readNotPermitted
        }
    }

    public mutating func write(_ value: UnsafeRawBufferPointer, at index: Int, withResponse: Bool) throws(ATTErrorCode) -> WriteEffect {
        let attribute = table.attributes[index]
        switch attribute.role {
        case .descriptor(let descriptor, let valueHandle) where descriptor.isClientCharacteristicConfiguration:
            guard value.count == 2 else { throw .invalidAttributeValueLength }
            let configuration = ClientCharacteristicConfiguration(rawValue: UInt16(value[0]) | UInt16(value[1]) << 8)
            configurations[attribute.handle] = configuration
            return .configured(valueHandle: valueHandle, configuration: configuration)
        case .characteristicValue(let characteristic):
            let allowed: CharacteristicProperties = withResponse ? .write : .writeWithoutResponse
            // Devices commonly accept either kind of write on a writable value; so do we.
            guard characteristic.properties.contains(allowed) || !characteristic.properties.isDisjoint(with: [.write, .writeWithoutResponse]) else {
                throw .writeNotPermitted
            }
            return .accepted
        default:
            throw .writeNotPermitted
        }
    }
}
