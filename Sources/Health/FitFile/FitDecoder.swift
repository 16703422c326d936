import BandWire

/// Reads a FIT file's records one at a time: definition messages set the layout of a local message
/// type, data messages follow it, compressed-timestamp headers add a 5-bit offset to the last
/// timestamp. No I/O: it walks a caller's buffer and hands each data message to a closure, so a
/// file's messages never all live at once.
public struct FitDecoder {
    public static let timestampField: UInt8 = 253

    private var definitions: [FitDefinition?] = Array(repeating: nil, count: 16)
    /// The last full timestamp seen, for compressed-timestamp headers.
    public private(set) var lastTimestamp: UInt32?
    /// Developer field descriptions (`field_description`), by developer index and field number.
    private var descriptions: [UInt16: (name: String?, units: String?, baseType: FitBaseType?)] = [:]

    public init() {}

    /// Decodes every FIT file in `bytes` (files may be chained: another header after a CRC), checking
    /// each header and file CRC before its records, and passes the data messages to `body`.
    /// Returns the headers. Damage throws a ``ParseError`` naming the byte offset.
    @discardableResult
    public static func decode(_ bytes: UnsafeRawBufferPointer,
                              _ body: (FitMessage) throws(ParseError) -> Void) throws(ParseError) -> [FitFileHeader] {
        var input = ByteCursor(bytes)
        var headers: [FitFileHeader] = []
        repeat {
            let start = input.position
            let header = try FitFileHeader(parsing: &input)
            headers.append(header)
            let dataSize = Int(header.dataSize)
            guard dataSize <= input.remaining, input.remaining - dataSize >= 2 else {
                throw ParseError(.truncated, at: input.offset + input.remaining, field: "records and file CRC (the header's data size)")
            }
            let crcPosition = input.position + dataSize
            let computed = FitCRC.checksum(UnsafeRawBufferPointer(rebasing: bytes[start..<crcPosition]))
            let stored = UInt16(bytes[crcPosition]) | UInt16(bytes[crcPosition + 1]) << 8
            guard stored == computed else { throw ParseError(.invalidValue, at: crcPosition, field: "file CRC") }
            var records = try input.readCursor(dataSize, "records")
            var decoder = FitDecoder()
            while !records.isAtEnd {
                if let message = try decoder.decodeRecord(&records) { try body(message) }
            }
            try input.skip(2, "file CRC")
        } while !input.isAtEnd
        return headers
    }

    /// Decodes one record: a definition (returns nil) or a data message.
    public mutating func decodeRecord(_ input: inout ByteCursor) throws(ParseError) -> FitMessage? {
        let offset = input.offset
        let header = try input.readUInt8("record header")
        if header & 0x80 != 0 {
            let local = (header >> 5) & 0x03
            guard let last = lastTimestamp else {
                throw ParseError(.invalidValue, at: offset, field: "compressed timestamp before any timestamp")
            }
            let timeOffset = UInt64(header & 0x1F)
            var next = UInt64(last & ~0x1F) + timeOffset
            if timeOffset < UInt64(last & 0x1F) { next += 0x20 }
            // 0xFFFFFFFF is the invalid time: a roll-over onto or past it is damage, not a time.
            guard next < UInt64(UInt32.max) else { throw ParseError(.invalidValue, at: offset, field: "compressed timestamp past the last FIT time") }
            let timestamp = UInt32(next)
            lastTimestamp = timestamp
            return try dataMessage(&input, local: local, offset: offset, compressedTimestamp: timestamp)
        }
        let local = header & 0x0F
        if header & 0x40 != 0 {
            definitions[Int(local)] = try FitDefinition(parsing: &input, hasDeveloperFields: header & 0x20 != 0)
            return nil
        }
        return try dataMessage(&input, local: local, offset: offset, compressedTimestamp: nil)
    }

    private mutating func dataMessage(_ input: inout ByteCursor, local: UInt8, offset: Int,
                                      compressedTimestamp: UInt32?) throws(ParseError) -> FitMessage {
        guard let definition = definitions[Int(local)] else {
            throw ParseError(.invalidValue, at: offset, field: "data message of a local type with no definition")
        }
        var fields: [FitField] = []
        fields.reserveCapacity(definition.fields.count)
        var timestamp = compressedTimestamp
        for field in definition.fields {
            let bytes = try input.readBytes(Int(field.size), "field (past the end of the records)")
            let decoded = FitField(number: field.number, baseType: field.baseType, bigEndian: definition.bigEndian, bytes: Array(bytes))
            if field.number == Self.timestampField, field.baseType == .uint32, let value = decoded.integer() {
                timestamp = UInt32(value)
                lastTimestamp = UInt32(value)
            }
            fields.append(decoded)
        }
        var developerFields: [FitDeveloperField] = []
        for field in definition.developerFields {
            let bytes = try input.readBytes(Int(field.size), "developer field (past the end of the records)")
            let description = descriptions[UInt16(field.developerIndex) << 8 | UInt16(field.number)]
            developerFields.append(FitDeveloperField(developerIndex: field.developerIndex, number: field.number, bytes: Array(bytes),
                                                     name: description?.name, units: description?.units, baseType: description?.baseType))
        }
        let message = FitMessage(globalNumber: definition.globalNumber, localType: local, offset: offset, timestamp: timestamp,
                                 fields: fields, developerFields: developerFields)
        if definition.globalNumber == FitMessageNumber.fieldDescription, let index = message.integer(0), let number = message.integer(1),
           (0...255).contains(index), (0...255).contains(number) {
            let baseType = message.integer(2).flatMap { (0...255).contains($0) ? FitBaseType(definitionByte: UInt8($0)) : nil }
            descriptions[UInt16(index) << 8 | UInt16(number)] = (message.field(3)?.text, message.field(8)?.text, baseType)
        }
        return message
    }
}
