import BandATT
import BandGATT
import BandWire

/// A peripheral's GATT database as a trace revealed it: what discovery found and what reads
/// returned, on one connection.
///
/// Only what the trace shows is here. A range the client never discovered is absent (a
/// replaying server answers it with Attribute Not Found, as the end of any discovery loop);
/// a value it never read has no entry in ``values`` (a replaying server refuses the read).
/// Build one with ``GATTDatabaseReconstructor``, or by hand in tests.
public struct RecordedGATTDatabase: Hashable, Sendable {
    /// Sorted by handle, non-overlapping.
    public var services: [RecordedService]
    public var includes: [RecordedInclude]
    /// Sorted by declaration handle.
    public var characteristics: [RecordedCharacteristic]
    /// Sorted by handle.
    public var descriptors: [RecordedDescriptor]
    /// Values read (or read in pieces) by handle: characteristic values and descriptors.
    public var values: [UInt16: RecordedValue]
    /// Reads the server refused, by handle, with its error (e.g. Insufficient Authentication):
    /// a replaying server refuses them the same way.
    public var readErrors: [UInt16: ATTErrorCode]
    /// The server's Receive MTU from its Exchange MTU Response, when the trace has one.
    public var serverMTU: Int?

    public init(services: [RecordedService] = [], includes: [RecordedInclude] = [],
                characteristics: [RecordedCharacteristic] = [], descriptors: [RecordedDescriptor] = [],
                values: [UInt16: RecordedValue] = [:], readErrors: [UInt16: ATTErrorCode] = [:], serverMTU: Int? = nil) {
        self.services = services.sorted { $0.handle < $1.handle }
        self.includes = includes.sorted { $0.handle < $1.handle }
        self.characteristics = characteristics.sorted { $0.handle < $1.handle }
        self.descriptors = descriptors.sorted { $0.handle < $1.handle }
        self.values = values
        self.readErrors = readErrors
        self.serverMTU = serverMTU
    }

    public var isEmpty: Bool { services.isEmpty && characteristics.isEmpty && descriptors.isEmpty }

    /// Attributes the database names (declarations, values, descriptors).
    public var attributeCount: Int { services.count + includes.count + 2 * characteristics.count + descriptors.count }

    public func service(containing handle: UInt16) -> RecordedService? {
        services.last { $0.handle <= handle && handle <= $0.endGroupHandle }
    }

    /// The characteristic whose value sits at `valueHandle`.
    public func characteristic(valueHandle: UInt16) -> RecordedCharacteristic? {
        characteristics.first { $0.valueHandle == valueHandle }
    }

    /// The characteristic whose range (declaration up to the next declaration or the end of
    /// its service) holds `handle`.
    public func characteristic(containing handle: UInt16) -> RecordedCharacteristic? {
        guard let index = characteristics.lastIndex(where: { $0.handle <= handle }) else { return nil }
        return handle <= endHandle(ofCharacteristicAt: index) ? characteristics[index] : nil
    }

    /// Last handle of the characteristic at `index` (Core 5.4 Vol 3 Part G §4.7.1: the
    /// descriptors run up to the next declaration or the end of the service).
    public func endHandle(ofCharacteristicAt index: Int) -> UInt16 {
        let characteristic = characteristics[index]
        let serviceEnd = service(containing: characteristic.handle)?.endGroupHandle ?? 0xFFFF
        var end = serviceEnd
        if index + 1 < characteristics.count, characteristics[index + 1].handle <= serviceEnd {
            end = characteristics[index + 1].handle - 1
        }
        if let nextInclude = includes.first(where: { $0.handle > characteristic.handle && $0.handle <= end }) {
            end = nextInclude.handle - 1
        }
        return end
    }

    /// The descriptors of the characteristic at `index`.
    public func descriptors(ofCharacteristicAt index: Int) -> [RecordedDescriptor] {
        let start = characteristics[index].valueHandle
        let end = endHandle(ofCharacteristicAt: index)
        return descriptors.filter { $0.handle > start && $0.handle <= end }
    }

    /// The CCCD that switches notifications of the characteristic at `valueHandle`, if discovered.
    public func clientConfiguration(forValueHandle valueHandle: UInt16) -> RecordedDescriptor? {
        guard let index = characteristics.firstIndex(where: { $0.valueHandle == valueHandle }) else { return nil }
        return descriptors(ofCharacteristicAt: index).first(where: \.isClientCharacteristicConfiguration)
    }

    /// The UUID that gives `handle` its meaning: the characteristic UUID for a value handle,
    /// the descriptor type for a descriptor. Nil for declarations and unknown handles.
    public func uuid(ofValueHandle handle: UInt16) -> BluetoothUUID? {
        if let characteristic = characteristic(valueHandle: handle) { return characteristic.uuid }
        return descriptors.first { $0.handle == handle }?.uuid
    }
}
