/// A value to write into one field: nil integers and floats become the base type's invalid value.
public enum FitValue: Hashable, Sendable {
    case integer(Int64?)
    case float(Double?)
    /// A string field of `size` bytes (UTF-8, NUL-padded, cut at a character boundary to fit).
    case text(String, size: Int)
    case bytes([UInt8])
}

/// A field of a message to write: number, base type and value.
public struct FitOutField: Hashable, Sendable {
    public var number: UInt8
    public var baseType: FitBaseType
    public var value: FitValue

    public init(_ number: UInt8, _ baseType: FitBaseType, _ value: FitValue) {
        self.number = number
        self.baseType = baseType
        self.value = value
    }

    var size: Int {
        switch value {
        case .integer, .float: baseType.size
        case .text(_, let size): size
        case .bytes(let bytes): bytes.count
        }
    }

    func encode(into bytes: inout [UInt8], bigEndian: Bool) {
        let size = baseType.size
        func put(_ bits: UInt64) {
            for i in 0..<size {
                let shift = UInt64(8 * (bigEndian ? size - 1 - i : i))
                bytes.append(UInt8(truncatingIfNeeded: bits >> shift))
            }
        }
        switch value {
        case .integer(let value): put(value.map { UInt64(bitPattern: $0) } ?? baseType.invalidPattern)
        case .float(let value):
            guard let value else { put(baseType.invalidPattern); return }
            put(baseType == .float32 ? UInt64(Float(value).bitPattern) : value.bitPattern)
        case .text(let text, let size):
            var utf8 = Array(text.utf8.prefix(size - 1))
            // Cut at a character boundary: a partial UTF-8 sequence at the end is dropped.
            while !utf8.isEmpty, String(validating: utf8, as: UTF8.self) == nil { utf8.removeLast() }
            bytes += utf8 + Array(repeating: 0, count: size - utf8.count)
        case .bytes(let raw): bytes += raw
        }
    }
}

/// Builds a FIT file (the mirror of ``FitDecoder``): definitions written when a local type's layout
/// changes, data messages, and the header and file CRC at the end.
public struct FitWriter {
    public private(set) var records: [UInt8] = []
    private var definitions: [FitDefinition?] = Array(repeating: nil, count: 16)

    public init() {}

    /// Writes a definition message for `local` (0…15).
    public mutating func define(_ local: UInt8, _ definition: FitDefinition) {
        records.append(0x40 | (definition.developerFields.isEmpty ? 0 : 0x20) | (local & 0x0F))
        definition.encode(into: &records)
        definitions[Int(local & 0x0F)] = definition
    }

    /// Writes one data message of `global` through local type `local`, defining the layout first when
    /// it differs from the type's current one. `compressedTimeOffset` (local 0…3) writes a
    /// compressed-timestamp header with that 5-bit offset instead of a normal one.
    public mutating func write(_ local: UInt8, global: UInt16, _ fields: [FitOutField], developer: [(FitDeveloperFieldDefinition, [UInt8])] = [],
                               bigEndian: Bool = false, compressedTimeOffset: UInt8? = nil) {
        let definition = FitDefinition(globalNumber: global,
                                       fields: fields.map { FitFieldDefinition(number: $0.number, size: UInt8($0.size), baseType: $0.baseType) },
                                       developerFields: developer.map(\.0), bigEndian: bigEndian)
        if definitions[Int(local & 0x0F)] != definition { define(local, definition) }
        if let offset = compressedTimeOffset {
            records.append(0x80 | (local & 0x03) << 5 | (offset & 0x1F))
        } else {
            records.append(local & 0x0F)
        }
        for field in fields { field.encode(into: &records, bigEndian: bigEndian) }
        for (_, bytes) in developer { records += bytes }
    }

    /// Appends bytes as they are (tests write damaged records this way).
    public mutating func appendRaw(_ bytes: [UInt8]) { records += bytes }

    /// The whole file: header (14 bytes with CRC, or 12), records, file CRC.
    public func finish(headerSize: UInt8 = 14, profileVersion: UInt16 = 2132) -> [UInt8] {
        var file = FitFileHeader(size: headerSize, profileVersion: profileVersion, dataSize: UInt32(records.count)).encoded()
        file += records
        let crc = FitCRC.checksum(file)
        file += [UInt8(truncatingIfNeeded: crc), UInt8(truncatingIfNeeded: crc >> 8)]
        return file
    }
}
