import BandWire

/// Legacy advertising data or scan response: AD structures in at most 31 bytes (Core 5.4
/// Vol 3 Part C §11; Core Specification Supplement Part A), built without allocation.
///
/// Each `append…` adds one structure and returns false (adding nothing) when it does not fit,
/// so a caller can fall back (a shortened name) instead of sending a cut structure.
public struct AdvertisingPayload: Equatable, Sendable {
    public static let capacity = 31
    /// AD type values used here (Supplement Part A §1; Assigned Numbers §2.3).
    public enum ADType {
        public static let flags: UInt8 = 0x01
        public static let completeServiceUUIDs16: UInt8 = 0x03
        public static let completeServiceUUIDs128: UInt8 = 0x07
        public static let shortenedLocalName: UInt8 = 0x08
        public static let completeLocalName: UInt8 = 0x09
        public static let manufacturerSpecificData: UInt8 = 0xFF
    }
    /// LE General Discoverable Mode, BR/EDR Not Supported.
    public static let generalDiscoverableLEOnly: UInt8 = 0x06

    public internal(set) var bytes = FixedBytes<31>()

    public init() {}

    /// Adds one structure of `type` whose `length` data bytes `body` writes.
    mutating func append(type: UInt8, length: Int, _ body: (inout FixedBytes<31>) -> Void) -> Bool {
        guard length <= 29, bytes.count + 2 + length <= Self.capacity else { return false }
        _ = bytes.append(UInt8(length + 1))
        _ = bytes.append(type)
        body(&bytes)
        return true
    }

    /// The Flags structure.
    public mutating func appendFlags(_ flags: UInt8 = AdvertisingPayload.generalDiscoverableLEOnly) -> Bool {
        append(type: ADType.flags, length: 1) { _ = $0.append(flags) }
    }

    /// The Complete List of 16-bit Service UUIDs (the short UUIDs among `uuids`; none: nothing added).
    public mutating func appendServiceUUIDs16<C: Collection>(_ uuids: C) -> Bool where C.Element == BluetoothUUID {
        var count = 0
        for uuid in uuids where uuid.shortValue != nil { count += 1 }
        guard count > 0 else { return true }
        return append(type: ADType.completeServiceUUIDs16, length: 2 * count) { out in
            for uuid in uuids { if let short = uuid.shortValue { _ = out.append(UInt8(truncatingIfNeeded: short)); _ = out.append(UInt8(short >> 8)) } }
        }
    }

    /// The Complete List of 128-bit Service UUIDs (the long UUIDs among `uuids`), little-endian.
    public mutating func appendServiceUUIDs128<C: Collection>(_ uuids: C) -> Bool where C.Element == BluetoothUUID {
        var count = 0
        for uuid in uuids where uuid.shortValue == nil { count += 1 }
        guard count > 0 else { return true }
        return append(type: ADType.completeServiceUUIDs128, length: 16 * count) { out in
            for uuid in uuids where uuid.shortValue == nil {
                for shift in stride(from: 0, to: 64, by: 8) { _ = out.append(UInt8(truncatingIfNeeded: uuid.low >> UInt64(shift))) }
                for shift in stride(from: 0, to: 64, by: 8) { _ = out.append(UInt8(truncatingIfNeeded: uuid.high >> UInt64(shift))) }
            }
        }
    }

    /// The Complete Local Name, or the Shortened Local Name cut to the room left (at a UTF-8
    /// character boundary) when the whole name does not fit.
    public mutating func appendLocalName(_ name: UnsafeRawBufferPointer) -> Bool {
        let room = Self.capacity - bytes.count - 2
        guard room > 0 else { return false }
        if name.count <= room {
            return append(type: ADType.completeLocalName, length: name.count) { out in for byte in name { _ = out.append(byte) } }
        }
        var cut = room
        while cut > 0, name[cut] & 0xC0 == 0x80 { cut -= 1 }  // never split a UTF-8 sequence
        return append(type: ADType.shortenedLocalName, length: cut) { out in for byte in name[0..<cut] { _ = out.append(byte) } }
    }

    /// Manufacturer Specific Data: a company identifier (little-endian), then `data`.
    public mutating func appendManufacturerData(company: UInt16, _ data: UnsafeRawBufferPointer) -> Bool {
        append(type: ADType.manufacturerSpecificData, length: 2 + data.count) { out in
            _ = out.append(UInt8(truncatingIfNeeded: company))
            _ = out.append(UInt8(company >> 8))
            for byte in data { _ = out.append(byte) }
        }
    }
}
