import BandWire

/// Find Information Response (0x05): handle–type pairs, all with UUIDs of one width.
///
/// Core 5.4 Vol 3 Part F §3.4.3.2.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | opcode 0x05 |
/// | 1 | 1 | format: 0x01 16-bit UUIDs, 0x02 128-bit UUIDs |
/// | 2 | 4·n or 18·n, n ≥ 1 | {handle u16 (non-zero), UUID} repeated |
///
/// The entries stay inline as raw bytes; read them with ``entries`` or ``entry(at:)``
/// (no allocation), build them with ``init(format:)`` and ``append(handle:type:mtu:)``.
public struct ATTFindInformationResponse: ATTPDUType {
    public static let opcode = ATTOpcode.findInformationResponse

    /// Open so an unknown format byte can be named in an error; only the two below decode.
    public struct Format: RawRepresentable, Hashable, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let handleAnd16BitUUID = Format(rawValue: 0x01)
        public static let handleAnd128BitUUID = Format(rawValue: 0x02)

        /// The UUID width this format carries.
        public var uuidWidth: Int? {
            switch self {
            case .handleAnd16BitUUID: 2
            case .handleAnd128BitUUID: 16
            default: nil
            }
        }

        /// The format whose UUIDs have `uuid`'s shortest wire width.
        public static func fitting(_ uuid: BluetoothUUID) -> Format {
            uuid.shortValue == nil ? .handleAnd128BitUUID : .handleAnd16BitUUID
        }
    }

    public struct Entry: Hashable, Sendable {
        public var handle: UInt16
        public var type: BluetoothUUID
        public init(handle: UInt16, type: BluetoothUUID) {
            self.handle = handle
            self.type = type
        }
    }

    public private(set) var format: Format
    /// The entries as sent: `count` × (2 + UUID width) bytes.
    public private(set) var entryBytes: ATTParameterBytes

    var entryLength: Int { 2 + (format.uuidWidth ?? 2) }

    /// An empty response to fill with ``append(handle:type:mtu:)``.
    public init(format: Format) {
        precondition(format.uuidWidth != nil, "Find Information Response format must be 0x01 or 0x02")
        self.format = format
        entryBytes = ATTParameterBytes()
    }

    public var count: Int { entryBytes.count / entryLength }
    public var isEmpty: Bool { entryBytes.isEmpty }

    public func entry(at index: Int) -> Entry {
        precondition(index >= 0 && index < count, "entry index out of range")
        let base = index * entryLength
        let handle = entryBytes.uint16LE(at: base)
        let type = entryBytes.uuid(at: base + 2, width: entryLength - 2)
        return Entry(handle: handle, type: type)
    }

    /// The entries in order, decoded on the fly.
    public var entries: ATTEntries<Self> { ATTEntries(self) }

    /// Appends an entry if its UUID has this response's width and the PDU stays within `mtu`;
    /// false (and nothing appended) otherwise, which tells a server the response is full.
    public mutating func append(handle: UInt16, type: BluetoothUUID, mtu: Int) -> Bool {
        guard Format.fitting(type) == format, 2 + entryBytes.count + entryLength <= mtu else { return false }
        guard entryLength <= entryBytes.freeCapacity else { return false }
        _ = entryBytes.appendUInt16LE(handle)
        _ = entryBytes.appendUUID(type)
        return true
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        try input.readOpcode(Self.opcode)
        let formatStart = input
        format = Format(rawValue: try input.readUInt8("format"))
        guard let width = format.uuidWidth else { throw formatStart.error(.invalidValue, "format") }
        entryBytes = try input.readEntryList(entryLength: 2 + width, "information data") { (entry) throws(ParseError) in
            _ = try entry.readNonZeroHandle("handle")
        }
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(Self.opcode.rawValue)
        output.writeUInt8(format.rawValue)
        entryBytes.write(to: &output)
    }
}
