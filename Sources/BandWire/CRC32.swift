/// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320, init and xorout 0xFFFFFFFF),
/// as zlib's `crc32()`; check value for "123456789" is 0xCBF43926.
///
/// Used by the band's history transfer. Table-driven, streaming, allocation-free.
public struct CRC32: Sendable {
    public private(set) var value: UInt32 = 0

    public init() {}

    static let table: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var c = ~value
        Self.table.withUnsafeBufferPointer { t in
            for byte in bytes { c = t[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        }
        value = ~c
    }

    public mutating func update<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        var c = ~value
        for byte in bytes { c = Self.table[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        value = ~c
    }

    public static func checksum<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }
}
