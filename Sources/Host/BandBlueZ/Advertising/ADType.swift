/// The type byte of an advertising data structure.
///
/// Assigned Numbers §2.3 "Common Data Types"; meanings in the Core Specification Supplement
/// Part A §1. Open: an advertiser may send types BandKit does not know, and they are kept.
public struct ADType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let flags = ADType(rawValue: 0x01)
    public static let incompleteServiceUUIDs16 = ADType(rawValue: 0x02)
    public static let completeServiceUUIDs16 = ADType(rawValue: 0x03)
    public static let incompleteServiceUUIDs32 = ADType(rawValue: 0x04)
    public static let completeServiceUUIDs32 = ADType(rawValue: 0x05)
    public static let incompleteServiceUUIDs128 = ADType(rawValue: 0x06)
    public static let completeServiceUUIDs128 = ADType(rawValue: 0x07)
    public static let shortenedLocalName = ADType(rawValue: 0x08)
    public static let completeLocalName = ADType(rawValue: 0x09)
    public static let txPowerLevel = ADType(rawValue: 0x0A)
    public static let serviceData16 = ADType(rawValue: 0x16)
    public static let appearance = ADType(rawValue: 0x19)
    public static let manufacturerSpecificData = ADType(rawValue: 0xFF)

    public var description: String { "0x" + String(rawValue, radix: 16) }
}

/// The Flags AD bits (Core Specification Supplement Part A §1.3).
public struct AdvertisingFlags: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let leLimitedDiscoverable = AdvertisingFlags(rawValue: 1 << 0)
    public static let leGeneralDiscoverable = AdvertisingFlags(rawValue: 1 << 1)
    public static let brEDRNotSupported = AdvertisingFlags(rawValue: 1 << 2)
}
