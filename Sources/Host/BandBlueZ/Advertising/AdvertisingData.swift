import BandWire

/// The payload of an advertising or scan response PDU: a run of AD structures.
///
/// Core 5.4 Vol 3 Part C §11 (format), Core Specification Supplement Part A §1 (types).
///
/// | offset | size       | field                                  |
/// |--------|------------|----------------------------------------|
/// | 0      | 1          | Length *n* (type + data); 0 ends data  |
/// | 1      | 1          | AD Type (``ADType``)                   |
/// | 2      | *n* − 1    | AD Data                                |
/// | …      |            | next structure                         |
///
/// A zero length ends the significant part (§11: the rest is padding and must be zeros).
/// Legacy advertising carries at most 31 bytes; extended advertising up to 1650 (Vol 4 Part E
/// §7.7.65.13), so the parser takes any size and the encoder any capacity.
///
/// The fields BandKit uses are decoded (flags, names, 16/32/128-bit service UUIDs, TX power,
/// manufacturer data); every structure is also kept verbatim in ``structures``, so nothing
/// an advertiser sent is lost. Multi-byte values are little-endian. Repeated structures of
/// one type accumulate (UUID lists) or the last wins (names, flags).
public struct AdvertisingData: Hashable, Sendable, WireCodable {
    /// One AD structure as received.
    public struct Structure: Hashable, Sendable {
        public var type: ADType
        public var data: [UInt8]
        public init(type: ADType, data: [UInt8]) {
            self.type = type
            self.data = data
        }
    }

    public private(set) var flags: AdvertisingFlags?
    /// The Complete Local Name, or the Shortened one if that is all there was.
    public private(set) var localName: String?
    public private(set) var isLocalNameComplete: Bool = false
    /// Service UUIDs from the 16-, 32- and 128-bit lists (complete or not), in order of appearance.
    public private(set) var serviceUUIDs: [BluetoothUUID] = []
    public private(set) var txPowerLevel: Int8?
    /// Company identifier (little-endian on the wire) and the bytes that follow it.
    public private(set) var manufacturerData: (company: UInt16, data: [UInt8])?
    /// Every structure, in order (including the decoded ones).
    public private(set) var structures: [Structure] = []

    public init() {}

    /// What an advertiser puts out: each non-nil field becomes one structure, in the order
    /// flags, 16-bit UUIDs, 128-bit UUIDs, name, TX power, manufacturer data.
    public init(flags: AdvertisingFlags? = nil, localName: String? = nil, serviceUUIDs: [BluetoothUUID] = [],
                txPowerLevel: Int8? = nil, manufacturerData: (company: UInt16, data: [UInt8])? = nil) {
        self.flags = flags
        self.localName = localName
        self.isLocalNameComplete = localName != nil
        self.serviceUUIDs = serviceUUIDs
        self.txPowerLevel = txPowerLevel
        self.manufacturerData = manufacturerData
        self.structures = Self.structures(flags: flags, localName: localName, serviceUUIDs: serviceUUIDs,
                                          txPowerLevel: txPowerLevel, manufacturerData: manufacturerData)
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        while !input.isAtEnd {
            let length = Int(try input.readUInt8("AD length"))
            if length == 0 {
                // End of significant data: the rest is padding (zeros per §11; not checked,
                // since some controllers pad with stale bytes).
                _ = input.readRemaining()
                break
            }
            let type = ADType(rawValue: try input.readUInt8("AD type"))
            var data = try input.readCursor(length - 1, "AD data")
            try decode(type: type, data: &data)
            structures.append(Structure(type: type, data: Array(data.bytes)))
        }
    }

    private mutating func decode(type: ADType, data: inout ByteCursor) throws(ParseError) {
        switch type {
        case .flags:
            // The Supplement allows more than one byte of flags; only the first is defined.
            flags = AdvertisingFlags(rawValue: try data.readUInt8("Flags"))
        case .incompleteServiceUUIDs16, .completeServiceUUIDs16:
            try appendUUIDs(&data, width: 2, field: "16-bit Service UUIDs")
        case .incompleteServiceUUIDs32, .completeServiceUUIDs32:
            try appendUUIDs(&data, width: 4, field: "32-bit Service UUIDs")
        case .incompleteServiceUUIDs128, .completeServiceUUIDs128:
            try appendUUIDs(&data, width: 16, field: "128-bit Service UUIDs")
        case .completeLocalName:
            localName = String(decoding: data.bytes, as: UTF8.self)
            isLocalNameComplete = true
        case .shortenedLocalName where !isLocalNameComplete:
            localName = String(decoding: data.bytes, as: UTF8.self)
        case .txPowerLevel:
            txPowerLevel = Int8(bitPattern: try data.readUInt8("TX Power Level"))
        case .manufacturerSpecificData:
            let company = try data.readUInt16LE("Company Identifier")
            manufacturerData = (company, Array(data.readRemaining()))
        default:
            break
        }
    }

    private mutating func appendUUIDs(_ data: inout ByteCursor, width: Int, field: StaticString) throws(ParseError) {
        guard data.remaining % width == 0 else {
            // A list whose length is not a multiple of the UUID size: report where the partial UUID starts.
            throw ParseError(.truncated, at: data.offset + data.remaining - data.remaining % width, field: field)
        }
        while !data.isAtEnd {
            serviceUUIDs.append(try BluetoothUUID(parsing: &data, width: width))
        }
    }

    public func encode(into output: inout ByteWriter) {
        for structure in structures {
            output.writeUInt8(UInt8(truncatingIfNeeded: structure.data.count + 1))
            output.writeUInt8(structure.type.rawValue)
            output.writeBytes(structure.data)
        }
    }

    /// Bytes ``encode(into:)`` writes.
    public var encodedSize: Int { structures.reduce(0) { $0 + 2 + $1.data.count } }

    private static func structures(flags: AdvertisingFlags?, localName: String?, serviceUUIDs: [BluetoothUUID],
                                   txPowerLevel: Int8?, manufacturerData: (company: UInt16, data: [UInt8])?) -> [Structure] {
        var result: [Structure] = []
        if let flags { result.append(Structure(type: .flags, data: [flags.rawValue])) }
        let short = serviceUUIDs.compactMap(\.shortValue)
        if !short.isEmpty {
            result.append(Structure(type: .completeServiceUUIDs16, data: short.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }))
        }
        let long = serviceUUIDs.filter { $0.shortValue == nil }
        if !long.isEmpty {
            var data: [UInt8] = []
            for uuid in long {
                for shift in stride(from: 0, to: 64, by: 8) { data.append(UInt8(truncatingIfNeeded: uuid.low >> UInt64(shift))) }
                for shift in stride(from: 0, to: 64, by: 8) { data.append(UInt8(truncatingIfNeeded: uuid.high >> UInt64(shift))) }
            }
            result.append(Structure(type: .completeServiceUUIDs128, data: data))
        }
        if let localName { result.append(Structure(type: .completeLocalName, data: Array(localName.utf8))) }
        if let txPowerLevel { result.append(Structure(type: .txPowerLevel, data: [UInt8(bitPattern: txPowerLevel)])) }
        if let manufacturerData {
            result.append(Structure(type: .manufacturerSpecificData,
                                    data: [UInt8(manufacturerData.company & 0xFF), UInt8(manufacturerData.company >> 8)] + manufacturerData.data))
        }
        return result
    }

    public static func == (lhs: AdvertisingData, rhs: AdvertisingData) -> Bool {
        lhs.structures == rhs.structures
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(structures) }
}
