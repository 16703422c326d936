import BandATT
import BandGATT
import BandWire

/// A recorded database laid out as the flat, handle-ordered attribute table an ATT server
/// searches (Core 5.4 Vol 3 Part F §3.2, Part G §3): declarations, values and descriptors,
/// each with the type a Find Information response reports.
///
/// Built once per replay; the dynamic part (which CCCDs the live client switched on) lives
/// in ``ReplayAttributeSource``, not here.
public struct ReplayAttributeTable: Sendable {
    /// What an attribute is, which decides how a server reads it.
    public enum Role: Hashable, Sendable {
        case service(RecordedService)
        case include(RecordedInclude)
        case characteristicDeclaration(RecordedCharacteristic)
        case characteristicValue(RecordedCharacteristic)
        /// A descriptor; `valueHandle` is the characteristic it belongs to, if known.
        case descriptor(RecordedDescriptor, valueHandle: UInt16?)
    }

    public struct Attribute: Hashable, Sendable {
        public var handle: UInt16
        public var type: BluetoothUUID
        public var role: Role

        /// The last handle of the group this attribute opens: a service's end group handle,
        /// the attribute itself otherwise (Find By Type Value, §3.4.3.4).
        public var groupEnd: UInt16 {
            if case .service(let service) = role { return service.endGroupHandle }
            return handle
        }
    }

    /// Sorted by handle, unique.
    public let attributes: [Attribute]
    public let database: RecordedGATTDatabase

    public init(_ database: RecordedGATTDatabase) {
        self.database = database
        var byHandle: [UInt16: Attribute] = [:]
        for service in database.services {
            let type = service.isPrimary ? GATTUUID.Declaration.primaryService : GATTUUID.Declaration.secondaryService
            byHandle[service.handle] = Attribute(handle: service.handle, type: type, role: .service(service))
        }
        for include in database.includes {
            byHandle[include.handle] = Attribute(handle: include.handle, type: GATTUUID.Declaration.include, role: .include(include))
        }
        for (index, characteristic) in database.characteristics.enumerated() {
            byHandle[characteristic.handle] = Attribute(handle: characteristic.handle, type: GATTUUID.Declaration.characteristic,
                                                        role: .characteristicDeclaration(characteristic))
            byHandle[characteristic.valueHandle] = Attribute(handle: characteristic.valueHandle, type: characteristic.uuid,
                                                             role: .characteristicValue(characteristic))
            for descriptor in database.descriptors(ofCharacteristicAt: index) where byHandle[descriptor.handle] == nil {
                byHandle[descriptor.handle] = Attribute(handle: descriptor.handle, type: descriptor.uuid,
                                                        role: .descriptor(descriptor, valueHandle: characteristic.valueHandle))
            }
        }
        for descriptor in database.descriptors where byHandle[descriptor.handle] == nil {
            byHandle[descriptor.handle] = Attribute(handle: descriptor.handle, type: descriptor.uuid,
                                                    role: .descriptor(descriptor, valueHandle: nil))
        }
        attributes = byHandle.values.sorted { $0.handle < $1.handle }
    }

    /// The attribute at `handle`, if the table has one.
    public func attribute(at handle: UInt16) -> Attribute? {
        let index = firstIndex(atOrAfter: handle)
        guard index < attributes.count, attributes[index].handle == handle else { return nil }
        return attributes[index]
    }

    /// Attributes whose handles lie in `range`, in order.
    public func attributes(in range: ATTHandleRange) -> ArraySlice<Attribute> {
        let start = firstIndex(atOrAfter: range.start)
        guard range.isValid, start < attributes.count else { return [] }
        var end = start
        while end < attributes.count, attributes[end].handle <= range.end { end += 1 }
        return attributes[start..<end]
    }

    /// Binary search: index of the first attribute with handle ≥ `handle`; `attributes.count` when none.
    public func firstIndex(atOrAfter handle: UInt16) -> Int {
        var low = 0, high = attributes.count
        while low < high {
            let mid = (low + high) / 2
            if attributes[mid].handle < handle { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
