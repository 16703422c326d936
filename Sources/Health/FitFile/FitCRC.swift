/// The FIT CRC-16 (polynomial 0xA001, reflected, initial 0), computed a nibble at a time with the
/// protocol's 16-entry table: the header's optional CRC and the file's trailing CRC.
public struct FitCRC: Sendable {
    public private(set) var value: UInt16 = 0

    public init() {}

    private static let table: [UInt16] = [
        0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401,
        0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400,
    ]

    public mutating func update(_ byte: UInt8) {
        var tmp = Self.table[Int(value & 0xF)]
        value = (value >> 4) & 0x0FFF
        value = value ^ tmp ^ Self.table[Int(byte & 0xF)]
        tmp = Self.table[Int(value & 0xF)]
        value = (value >> 4) & 0x0FFF
        value = value ^ tmp ^ Self.table[Int(byte >> 4)]
    }

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        for byte in bytes { update(byte) }
    }

    public static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt16 {
        var crc = FitCRC()
        crc.update(bytes)
        return crc.value
    }

    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt16 {
        var crc = FitCRC()
        for byte in bytes { crc.update(byte) }
        return crc.value
    }
}
