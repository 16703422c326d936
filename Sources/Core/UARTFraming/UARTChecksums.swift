/// CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no final XOR
/// (check value over "123456789": 0x29B1). The UART frame's trailer.
public struct CRC16 {
    public private(set) var value: UInt16 = 0xFFFF
    public init() {}

    @inline(__always)
    public mutating func update(_ byte: UInt8) {
        value ^= UInt16(byte) << 8
        for _ in 0..<8 { value = value & 0x8000 != 0 ? (value << 1) ^ 0x1021 : value << 1 }
    }
}

/// CRC-8: poly 0x07, init 0x00 (CRC-8/SMBUS; check value over "123456789": 0xF4). The UART
/// frame's header check.
public enum CRC8 {
    public static func update(_ crc: UInt8, _ byte: UInt8) -> UInt8 {
        var value = crc ^ byte
        for _ in 0..<8 { value = value & 0x80 != 0 ? (value << 1) ^ 0x07 : value << 1 }
        return value
    }

    public static func checksum(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> UInt8 {
        update(update(update(0, a), b), c)
    }
}
