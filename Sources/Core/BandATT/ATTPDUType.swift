import BandWire

/// One ATT PDU type, decoded and encoded *including* its opcode byte.
///
/// Decoders verify the opcode (``ParseError/Kind/invalidValue`` at offset 0 otherwise) and,
/// where Core 5.4 Vol 3 Part F §3.4 gives the PDU a fixed size, reject trailing bytes.
/// PDUs that end in a variable-length value take every remaining byte as the value.
public protocol ATTPDUType: WireDecodable, WireEncodable, Equatable, Sendable {
    static var opcode: ATTOpcode { get }
}

/// The parameters of a PDU (everything after its opcode), inline: up to 516 bytes, the most an
/// ATT_MTU of 517 leaves. Lists and unmodelled PDUs use it; an attribute value alone never
/// exceeds 512 bytes (``AttributeBytes``), but a list of entries at the largest MTU does.
public typealias ATTParameterBytes = FixedBytes<516>

extension ByteCursor {
    /// Reads the opcode byte and checks that it is `expected`.
    mutating func readOpcode(_ expected: ATTOpcode) throws(ParseError) {
        let start = self
        let raw = try readUInt8("opcode")
        guard raw == expected.rawValue else {
            throw start.error(.invalidValue, "opcode")
        }
    }

    /// Reads the rest of the PDU as an attribute value (at most 512 bytes).
    mutating func readAttributeValue(_ field: StaticString = "attribute value") throws(ParseError) -> AttributeBytes {
        let start = offset
        let view = readRemaining()
        guard view.count <= ATT.maximumAttributeValueLength else {
            throw ParseError(.invalidValue, at: start + ATT.maximumAttributeValueLength, field: field)
        }
        return try AttributeBytes(copying: view, offset: start)
    }

    /// Reads the rest of the PDU into parameter storage (at most 516 bytes).
    mutating func readParameters(_ field: StaticString) throws(ParseError) -> ATTParameterBytes {
        let start = offset
        let view = readRemaining()
        guard view.count <= ATT.maximumParameterLength else {
            throw ParseError(.invalidValue, at: start + ATT.maximumParameterLength, field: field)
        }
        return try ATTParameterBytes(copying: view, offset: start)
    }

    /// Reads a handle that §3.2.2 forbids to be 0x0000 (reserved) in this position.
    mutating func readNonZeroHandle(_ field: StaticString) throws(ParseError) -> UInt16 {
        let start = self
        let handle = try readUInt16LE(field)
        guard handle != 0 else { throw start.error(.invalidValue, field) }
        return handle
    }
}

extension FixedBytes {
    /// Bytes that can still be appended.
    var freeCapacity: Int { capacity - count }

    /// Appends `bytes` whole, or nothing when they do not fit.
    mutating func append(contentsOf bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count <= capacity - count else { return false }
        for byte in bytes { _ = append(byte) }
        return true
    }

    /// Appends a little-endian UInt16, or nothing when it does not fit.
    mutating func appendUInt16LE(_ value: UInt16) -> Bool {
        guard capacity - count >= 2 else { return false }
        _ = append(UInt8(truncatingIfNeeded: value))
        _ = append(UInt8(truncatingIfNeeded: value >> 8))
        return true
    }

    /// The little-endian UInt16 at `index`.
    func uint16LE(at index: Int) -> UInt16 {
        UInt16(self[index]) | UInt16(self[index + 1]) << 8
    }
}

/// A start…end attribute handle range of a discovery request.
///
/// Decoders keep whatever the client sent: a server must answer an invalid range with an
/// Error Response "Invalid Handle" naming the starting handle (Core 5.4 Vol 3 Part F
/// §3.4.3.1, §3.4.4.1, §3.4.4.9), which it can only do if the request decoded.
public struct ATTHandleRange: Hashable, Sendable {
    public var start: UInt16
    public var end: UInt16

    public init(start: UInt16, end: UInt16) {
        self.start = start
        self.end = end
    }

    /// The whole handle space, 0x0001–0xFFFF, where discovery starts.
    public static let all = ATTHandleRange(start: 0x0001, end: 0xFFFF)

    /// A range a server may search: starting handle non-zero and not past the ending handle.
    public var isValid: Bool { start != 0 && start <= end }

    public func contains(_ handle: UInt16) -> Bool { handle >= start && handle <= end }

    init(parsing input: inout ByteCursor) throws(ParseError) {
        start = try input.readUInt16LE("starting handle")
        end = try input.readUInt16LE("ending handle")
    }

    func encode(into output: inout ByteWriter) {
        output.writeUInt16LE(start)
        output.writeUInt16LE(end)
    }
}

extension ByteCursor {
    /// Reads the rest of a list response: one or more whole `entryLength`-byte entries, each
    /// checked by `validate` with a cursor that reports PDU offsets.
    ///
    /// An empty list or a partial last entry is a truncated PDU (a server sends an Error
    /// Response, never an empty list).
    mutating func readEntryList(
        entryLength: Int, _ field: StaticString,
        validate: (inout ByteCursor) throws(ParseError) -> Void
    ) throws(ParseError) -> ATTParameterBytes {
        let start = offset
        let all = readRemaining()
        guard all.count <= ATT.maximumParameterLength else {
            throw ParseError(.invalidValue, at: start + ATT.maximumParameterLength, field: field)
        }
        var entries = ByteCursor(all, baseOffset: start)
        repeat {
            var entry = try entries.readCursor(entryLength, field)
            try validate(&entry)
        } while !entries.isAtEnd
        return try ATTParameterBytes(copying: all, offset: start)
    }

    /// Reads a UUID that fills the rest of a PDU or attribute value: 2 or 16 bytes, the only
    /// widths ATT carries (Core 5.4 Vol 3 Part F §3.2.1). 0, 1 or 3–15 bytes are a cut UUID
    /// (`truncated`); more than 16 leave `trailingBytes`.
    public mutating func readUUIDFillingRest(_ field: StaticString) throws(ParseError) -> BluetoothUUID {
        switch remaining {
        case 2: return try BluetoothUUID(parsing: &self, width: 2)
        case 16: return try BluetoothUUID(parsing: &self, width: 16)
        case 17...:
            var past = self
            try past.skip(16)
            throw past.error(.trailingBytes, field)
        default:
            throw error(.truncated, field)
        }
    }
}

extension FixedBytes {
    /// Appends `uuid` in its shortest ATT form (2 or 16 bytes, little-endian); false when it does not fit.
    mutating func appendUUID(_ uuid: BluetoothUUID) -> Bool {
        guard uuid.wireSize <= freeCapacity else { return false }
        if let short = uuid.shortValue { return appendUInt16LE(short) }
        for i in 0..<8 { _ = append(UInt8(truncatingIfNeeded: uuid.low >> (8 * UInt64(i)))) }
        for i in 0..<8 { _ = append(UInt8(truncatingIfNeeded: uuid.high >> (8 * UInt64(i)))) }
        return true
    }

    /// The `width`-byte (2 or 16) little-endian UUID at `index`.
    func uuid(at index: Int, width: Int) -> BluetoothUUID {
        guard width == 16 else { return BluetoothUUID(uint16LE(at: index)) }
        var low: UInt64 = 0
        var high: UInt64 = 0
        for i in 0..<8 {
            low |= UInt64(self[index + i]) << (8 * UInt64(i))
            high |= UInt64(self[index + 8 + i]) << (8 * UInt64(i))
        }
        return BluetoothUUID(high: high, low: low)
    }
}
