import BandWire

/// One field of a definition message: number, size in bytes, base type.
public struct FitFieldDefinition: Hashable, Sendable {
    public var number: UInt8
    public var size: UInt8
    public var baseType: FitBaseType

    public init(number: UInt8, size: UInt8, baseType: FitBaseType) {
        self.number = number
        self.size = size
        self.baseType = baseType
    }
}

/// One developer field of a definition message: its number within the developer's data, its size,
/// and which developer (a `developer_data_id` message's index) defined it.
public struct FitDeveloperFieldDefinition: Hashable, Sendable {
    public var number: UInt8
    public var size: UInt8
    public var developerIndex: UInt8

    public init(number: UInt8, size: UInt8, developerIndex: UInt8) {
        self.number = number
        self.size = size
        self.developerIndex = developerIndex
    }
}

/// A definition message's body (after its record header): the layout that data messages of its
/// local message type follow until the type is defined again.
public struct FitDefinition: Hashable, Sendable {
    public var bigEndian: Bool
    public var globalNumber: UInt16
    public var fields: [FitFieldDefinition]
    public var developerFields: [FitDeveloperFieldDefinition]

    public init(globalNumber: UInt16, fields: [FitFieldDefinition], developerFields: [FitDeveloperFieldDefinition] = [], bigEndian: Bool = false) {
        self.bigEndian = bigEndian
        self.globalNumber = globalNumber
        self.fields = fields
        self.developerFields = developerFields
    }

    /// Bytes of each data message of this layout.
    public var messageSize: Int {
        fields.reduce(0) { $0 + Int($1.size) } + developerFields.reduce(0) { $0 + Int($1.size) }
    }

    /// Decodes the body; `hasDeveloperFields` comes from the record header's bit 5.
    public init(parsing input: inout ByteCursor, hasDeveloperFields: Bool) throws(ParseError) {
        _ = try input.readUInt8("definition reserved byte")
        let architectureOffset = input.offset
        switch try input.readUInt8("architecture") {
        case 0: bigEndian = false
        case 1: bigEndian = true
        default: throw ParseError(.invalidValue, at: architectureOffset, field: "architecture (0 or 1)")
        }
        globalNumber = bigEndian ? try input.readUInt16BE("global message number") : try input.readUInt16LE("global message number")
        let count = Int(try input.readUInt8("number of fields"))
        fields = []
        fields.reserveCapacity(count)
        for _ in 0..<count {
            let number = try input.readUInt8("field definition number")
            let sizeOffset = input.offset
            let size = try input.readUInt8("field size")
            guard size > 0 else { throw ParseError(.invalidValue, at: sizeOffset, field: "field size (0)") }
            let typeOffset = input.offset
            guard let baseType = FitBaseType(definitionByte: try input.readUInt8("base type")) else {
                throw ParseError(.invalidValue, at: typeOffset, field: "base type")
            }
            fields.append(FitFieldDefinition(number: number, size: size, baseType: baseType))
        }
        developerFields = []
        if hasDeveloperFields {
            let developerCount = Int(try input.readUInt8("number of developer fields"))
            for _ in 0..<developerCount {
                let number = try input.readUInt8("developer field number")
                let sizeOffset = input.offset
                let size = try input.readUInt8("developer field size")
                guard size > 0 else { throw ParseError(.invalidValue, at: sizeOffset, field: "developer field size (0)") }
                let index = try input.readUInt8("developer data index")
                developerFields.append(FitDeveloperFieldDefinition(number: number, size: size, developerIndex: index))
            }
        }
    }

    /// The body's bytes (the mirror of ``init(parsing:hasDeveloperFields:)``).
    public func encode(into bytes: inout [UInt8]) {
        bytes += [0, bigEndian ? 1 : 0]
        let global = bigEndian ? globalNumber.bigEndian : globalNumber.littleEndian
        bytes += [UInt8(truncatingIfNeeded: global), UInt8(truncatingIfNeeded: global >> 8)]
        bytes.append(UInt8(fields.count))
        for field in fields { bytes += [field.number, field.size, field.baseType.rawValue] }
        if !developerFields.isEmpty {
            bytes.append(UInt8(developerFields.count))
            for field in developerFields { bytes += [field.number, field.size, field.developerIndex] }
        }
    }
}
