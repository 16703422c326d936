/// A field's base type: its size, signedness and the value meaning "invalid" (no reading).
public enum FitBaseType: UInt8, Sendable, CaseIterable {
    case enumeration = 0x00, sint8 = 0x01, uint8 = 0x02, sint16 = 0x83, uint16 = 0x84, sint32 = 0x85
    case uint32 = 0x86, string = 0x07, float32 = 0x88, float64 = 0x89, uint8z = 0x0A, uint16z = 0x8B
    case uint32z = 0x8C, byte = 0x0D, sint64 = 0x8E, uint64 = 0x8F, uint64z = 0x90

    /// The type a definition's base-type byte names. The low five bits are the type number; the
    /// endian-ability bit (0x80) is implied by the number, so files that leave it off still decode.
    public init?(definitionByte byte: UInt8) {
        guard let type = Self.byNumber[Int(byte & 0x1F)] else { return nil }
        self = type
    }

    private static let byNumber: [Int: FitBaseType] = Dictionary(uniqueKeysWithValues: allCases.map { (Int($0.rawValue & 0x1F), $0) })

    public var size: Int {
        switch self {
        case .enumeration, .sint8, .uint8, .string, .uint8z, .byte: 1
        case .sint16, .uint16, .uint16z: 2
        case .sint32, .uint32, .float32, .uint32z: 4
        case .float64, .sint64, .uint64, .uint64z: 8
        }
    }

    public var isSigned: Bool { self == .sint8 || self == .sint16 || self == .sint32 || self == .sint64 }
    public var isFloat: Bool { self == .float32 || self == .float64 }
    public var isInteger: Bool { !isFloat && self != .string && self != .byte }

    /// The invalid value's bit pattern, in the low `size` bytes.
    public var invalidPattern: UInt64 {
        switch self {
        case .enumeration, .uint8, .byte: 0xFF
        case .sint8: 0x7F
        case .sint16: 0x7FFF
        case .uint16: 0xFFFF
        case .sint32: 0x7FFF_FFFF
        case .uint32, .float32: 0xFFFF_FFFF
        case .float64, .uint64: 0xFFFF_FFFF_FFFF_FFFF
        case .sint64: 0x7FFF_FFFF_FFFF_FFFF
        case .string, .uint8z, .uint16z, .uint32z, .uint64z: 0
        }
    }
}
