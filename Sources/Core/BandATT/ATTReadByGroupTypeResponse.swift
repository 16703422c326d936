import BandWire

/// Read By Group Type Response (0x11): one entry per group (service) found.
///
/// Core 5.4 Vol 3 Part F §3.4.4.10; GATT uses it only for service discovery (Vol 3 Part G
/// §4.4.1), whose group values are service UUIDs, so the length is 6 (16-bit UUIDs) or 20
/// (128-bit UUIDs) and anything else is rejected.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | opcode 0x11 |
/// | 1 | 1 | length L: 6 or 20 |
/// | 2 | L·n, n ≥ 1 | {attribute handle u16 (non-zero), end group handle u16 (≥ handle), UUID} repeated |
public struct ATTReadByGroupTypeResponse: ATTPDUType {
    public static let opcode = ATTOpcode.readByGroupTypeResponse

    public struct Entry: Hashable, Sendable {
        public var handle: UInt16
        public var endGroupHandle: UInt16
        /// The group's value: for a service declaration, the service UUID.
        public var uuid: BluetoothUUID
        public init(handle: UInt16, endGroupHandle: UInt16, uuid: BluetoothUUID) {
            self.handle = handle
            self.endGroupHandle = endGroupHandle
            self.uuid = uuid
        }
    }

    /// L: 6 or 20; 0 only in an empty response under construction.
    public private(set) var entryLength: UInt8
    public private(set) var entryBytes: ATTParameterBytes

    /// An empty response to fill with ``append(_:mtu:)``.
    public init() {
        entryLength = 0
        entryBytes = ATTParameterBytes()
    }

    public var count: Int { entryLength == 0 ? 0 : entryBytes.count / Int(entryLength) }
    public var isEmpty: Bool { entryBytes.isEmpty }

    public func entry(at index: Int) -> Entry {
        precondition(index >= 0 && index < count, "entry index out of range")
        let base = index * Int(entryLength)
        let uuid = entryBytes.uuid(at: base + 4, width: Int(entryLength) - 4)
        return Entry(handle: entryBytes.uint16LE(at: base), endGroupHandle: entryBytes.uint16LE(at: base + 2), uuid: uuid)
    }

    public var entries: ATTEntries<Self> { ATTEntries(self) }

    /// Appends an entry if its UUID has the width of the first entry's and the PDU stays
    /// within `mtu`; false (nothing appended) when the response is complete.
    public mutating func append(_ entry: Entry, mtu: Int) -> Bool {
        let length = 4 + entry.uuid.wireSize
        if entryLength != 0, length != Int(entryLength) { return false }
        guard 2 + entryBytes.count + length <= mtu, length <= entryBytes.freeCapacity else { return false }
        entryLength = UInt8(length)
        _ = entryBytes.appendUInt16LE(entry.handle)
        _ = entryBytes.appendUInt16LE(entry.endGroupHandle)
        _ = entryBytes.appendUUID(entry.uuid)
        return true
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        try input.readOpcode(Self.opcode)
        let lengthField = input
        entryLength = try input.readUInt8("length")
        guard entryLength == 6 || entryLength == 20 else { throw lengthField.error(.invalidValue, "length") }
        entryBytes = try input.readEntryList(entryLength: Int(entryLength), "attribute data list") { (entry) throws(ParseError) in
            let handle = try entry.readNonZeroHandle("attribute handle")
            let endField = entry
            guard try entry.readUInt16LE("end group handle") >= handle else {
                throw endField.error(.invalidValue, "end group handle")
            }
        }
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(Self.opcode.rawValue)
        output.writeUInt8(entryLength)
        entryBytes.write(to: &output)
    }
}
