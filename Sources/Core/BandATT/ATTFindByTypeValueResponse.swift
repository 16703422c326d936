import BandWire

/// Find By Type Value Response (0x07): the handle ranges of the matching attributes.
///
/// Core 5.4 Vol 3 Part F §3.4.3.4.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | opcode 0x07 |
/// | 1 | 4·n, n ≥ 1 | {found attribute handle u16 (non-zero), group end handle u16 (≥ found)} repeated |
public struct ATTFindByTypeValueResponse: ATTPDUType {
    public static let opcode = ATTOpcode.findByTypeValueResponse

    public struct Entry: Hashable, Sendable {
        public var handle: UInt16
        /// The last handle of the group; equal to ``handle`` for an attribute that groups nothing.
        public var endGroupHandle: UInt16
        public init(handle: UInt16, endGroupHandle: UInt16) {
            self.handle = handle
            self.endGroupHandle = endGroupHandle
        }
    }

    static let entryLength = 4

    /// The entries as sent.
    public private(set) var entryBytes: ATTParameterBytes

    /// An empty response to fill with ``append(_:mtu:)``.
    public init() { entryBytes = ATTParameterBytes() }

    public var count: Int { entryBytes.count / Self.entryLength }
    public var isEmpty: Bool { entryBytes.isEmpty }

    public func entry(at index: Int) -> Entry {
        precondition(index >= 0 && index < count, "entry index out of range")
        return Entry(handle: entryBytes.uint16LE(at: 4 * index), endGroupHandle: entryBytes.uint16LE(at: 4 * index + 2))
    }

    public var entries: ATTEntries<Self> { ATTEntries(self) }

    /// Appends an entry if the PDU stays within `mtu`; false (nothing appended) when full.
    public mutating func append(_ entry: Entry, mtu: Int) -> Bool {
        guard 1 + entryBytes.count + Self.entryLength <= mtu,
              Self.entryLength <= entryBytes.freeCapacity else { return false }
        _ = entryBytes.appendUInt16LE(entry.handle)
        _ = entryBytes.appendUInt16LE(entry.endGroupHandle)
        return true
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        try input.readOpcode(Self.opcode)
        entryBytes = try input.readEntryList(entryLength: Self.entryLength, "handles information list") { (entry) throws(ParseError) in
            let handle = try entry.readNonZeroHandle("found attribute handle")
            let endField = entry
            guard try entry.readUInt16LE("group end handle") >= handle else {
                throw endField.error(.invalidValue, "group end handle")
            }
        }
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(Self.opcode.rawValue)
        entryBytes.write(to: &output)
    }
}
