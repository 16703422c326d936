/// A field of a data message: its bytes as stored, read through its base type.
public struct FitField: Hashable, Sendable {
    public var number: UInt8
    public var baseType: FitBaseType
    public var bigEndian: Bool
    public var bytes: [UInt8]

    public init(number: UInt8, baseType: FitBaseType, bigEndian: Bool = false, bytes: [UInt8]) {
        self.number = number
        self.baseType = baseType
        self.bigEndian = bigEndian
        self.bytes = bytes
    }

    /// Elements of the field (an array field holds several); a size that is not a multiple of the
    /// base type's size makes the field a byte run, as the protocol says.
    public var count: Int { isWhole ? bytes.count / baseType.size : 0 }

    private var isWhole: Bool { bytes.count % baseType.size == 0 }

    /// The raw bits of element `index`, or nil when out of range or the invalid value.
    public func bits(_ index: Int = 0) -> UInt64? {
        guard isWhole, index >= 0, index < count else { return nil }
        let size = baseType.size
        var value: UInt64 = 0
        for i in 0..<size {
            let byte = UInt64(bytes[index * size + (bigEndian ? i : size - 1 - i)])
            value = value << 8 | byte
        }
        return value == baseType.invalidPattern ? nil : value
    }

    /// Element `index` as an integer (nil when invalid, not an integer type, or beyond Int64).
    public func integer(_ index: Int = 0) -> Int64? {
        guard baseType.isInteger, let bits = bits(index) else { return nil }
        let width = UInt64(baseType.size * 8)
        if baseType.isSigned {
            let shift = 64 - width
            return Int64(bitPattern: bits << shift) >> Int64(shift)
        }
        return bits > UInt64(Int64.max) ? nil : Int64(bits)
    }

    /// Element `index` as a number: integers converted, floats read (nil when invalid or not finite).
    public func number(_ index: Int = 0) -> Double? {
        if baseType.isFloat {
            guard let bits = bits(index) else { return nil }
            let value = baseType == .float32 ? Double(Float(bitPattern: UInt32(bits))) : Double(bitPattern: bits)
            return value.isFinite ? value : nil
        }
        return integer(index).map(Double.init)
    }

    /// A string field: UTF-8 up to the first NUL; nil when empty or not valid UTF-8.
    public var text: String? {
        guard baseType == .string else { return nil }
        let content = bytes.prefix { $0 != 0 }
        guard !content.isEmpty else { return nil }
        return String(validating: content, as: UTF8.self)
    }
}

/// A developer field's bytes, with the name and type its `field_description` gave, if one did.
public struct FitDeveloperField: Hashable, Sendable {
    public var developerIndex: UInt8
    public var number: UInt8
    public var bytes: [UInt8]
    public var name: String?
    public var units: String?
    public var baseType: FitBaseType?

    public init(developerIndex: UInt8, number: UInt8, bytes: [UInt8], name: String? = nil, units: String? = nil, baseType: FitBaseType? = nil) {
        self.developerIndex = developerIndex
        self.number = number
        self.bytes = bytes
        self.name = name
        self.units = units
        self.baseType = baseType
    }
}

/// One decoded data message.
public struct FitMessage: Hashable, Sendable {
    public var globalNumber: UInt16
    public var localType: UInt8
    /// Byte offset of the message's record header in the file.
    public var offset: Int
    /// Seconds since the FIT epoch: the message's timestamp field (253), or the one a compressed
    /// header implies.
    public var timestamp: UInt32?
    public var fields: [FitField]
    public var developerFields: [FitDeveloperField]

    public init(globalNumber: UInt16, localType: UInt8, offset: Int, timestamp: UInt32?, fields: [FitField], developerFields: [FitDeveloperField] = []) {
        self.globalNumber = globalNumber
        self.localType = localType
        self.offset = offset
        self.timestamp = timestamp
        self.fields = fields
        self.developerFields = developerFields
    }

    public func field(_ number: UInt8) -> FitField? { fields.first { $0.number == number } }
    public func integer(_ number: UInt8) -> Int64? { field(number)?.integer() }
    public func number(_ number: UInt8) -> Double? { field(number)?.number() }
    /// A scaled field: stored / scale − offset, as the profile defines units.
    public func scaled(_ number: UInt8, scale: Double, offset: Double = 0) -> Double? {
        self.number(number).map { $0 / scale - offset }
    }
}
