import BandWire

/// Read By Type Response (0x09): handle–value pairs, all of one length.
///
/// Core 5.4 Vol 3 Part F §3.4.4.2.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | opcode 0x09 |
/// | 1 | 1 | length L of each pair, ≥ 2 |
/// | 2 | L·n, n ≥ 1 | {attribute handle u16 (non-zero), value[L − 2]} repeated |
///
/// A value longer than min(ATT_MTU − 4, 253) is cut to that length (§3.4.4.2); the client
/// reads the rest with Read Blob. For characteristic discovery each value is a
/// characteristic declaration (see BandGATT's `CharacteristicDeclaration`).
public struct ATTReadByTypeResponse: ATTPDUType {
    public static let opcode = ATTOpcode.readByTypeResponse

    /// The length field is one byte and includes the 2-byte handle.
    public static let maximumValueLength = 253

    /// One pair, owning a copy of its value.
    public struct Entry: Equatable, Sendable {
        public var handle: UInt16
        public var value: FixedBytes<253>
        public init(handle: UInt16, value: FixedBytes<253>) {
            self.handle = handle
            self.value = value
        }
    }

    /// L: bytes per pair, handle included. 0 only in an empty response under construction.
    public private(set) var pairLength: UInt8
    /// The pairs as sent.
    public private(set) var entryBytes: ATTParameterBytes

    /// An empty response to fill with ``append(handle:value:mtu:)``.
    public init() {
        pairLength = 0
        entryBytes = ATTParameterBytes()
    }

    public var count: Int { pairLength == 0 ? 0 : entryBytes.count / Int(pairLength) }
    public var isEmpty: Bool { entryBytes.isEmpty }
    /// L − 2.
    public var valueLength: Int { max(0, Int(pairLength) - 2) }

    public func entry(at index: Int) -> Entry {
        precondition(index >= 0 && index < count, "entry index out of range")
        let base = index * Int(pairLength)
        var value = FixedBytes<253>()
        for i in 0..<valueLength { _ = value.append(entryBytes[base + 2 + i]) }
        return Entry(handle: entryBytes.uint16LE(at: base), value: value)
    }

    public var entries: ATTEntries<Self> { ATTEntries(self) }

    /// Calls `body` with each handle and a view of its value, valid only during the call.
    public func forEachEntry<E: Error>(_ body: (UInt16, UnsafeRawBufferPointer) throws(E) -> Void) throws(E) {
        let length = Int(pairLength)
        guard length > 0 else { return }
        try entryBytes.withUnsafeBytes { (raw) throws(E) in
            var base = 0
            while base + length <= raw.count {
                let handle = UInt16(raw[base]) | UInt16(raw[base + 1]) << 8
                try body(handle, UnsafeRawBufferPointer(rebasing: raw[base + 2..<base + length]))
                base += length
            }
        }
    }

    /// Appends a pair, cutting `value` to min(`mtu` − 4, 253) bytes as §3.4.4.2 requires.
    ///
    /// Returns false (nothing appended) when the pair does not fit in `mtu` or its (cut)
    /// value length differs from the first pair's: the response is then complete.
    public mutating func append(handle: UInt16, value: UnsafeRawBufferPointer, mtu: Int) -> Bool {
        let cut = min(value.count, mtu - 4, Self.maximumValueLength)
        guard cut >= 0 else { return false }
        if pairLength == 0 {
            pairLength = UInt8(cut + 2)
        } else if cut != valueLength {
            return false
        }
        let length = Int(pairLength)
        guard 2 + entryBytes.count + length <= mtu, length <= entryBytes.freeCapacity else {
            if entryBytes.isEmpty { pairLength = 0 }
            return false
        }
        _ = entryBytes.appendUInt16LE(handle)
        _ = entryBytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: value[0..<cut]))
        return true
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        try input.readOpcode(Self.opcode)
        let lengthField = input
        pairLength = try input.readUInt8("length")
        guard pairLength >= 2 else { throw lengthField.error(.invalidValue, "length") }
        entryBytes = try input.readEntryList(entryLength: Int(pairLength), "attribute data list") { (entry) throws(ParseError) in
            _ = try entry.readNonZeroHandle("attribute handle")
        }
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(Self.opcode.rawValue)
        output.writeUInt8(pairLength)
        entryBytes.write(to: &output)
    }
}
