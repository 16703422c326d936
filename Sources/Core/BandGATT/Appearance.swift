import BandWire

/// Appearance (0x2A01): what the device looks like, for a UI icon.
///
/// Core 5.4 Vol 3 Part C §12.2; Assigned Numbers §2.6 (category in bits 6–15, subcategory in
/// bits 0–5).
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 2 | category (bits 6–15), subcategory (bits 0–5) |
///
/// Open: unassigned values survive.
public struct Appearance: RawRepresentable, WireCodable, Hashable, Sendable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public init(category: UInt16, subcategory: UInt8) {
        precondition(category < 1 << 10 && subcategory < 1 << 6, "category is 10 bits, subcategory 6")
        rawValue = category << 6 | UInt16(subcategory)
    }

    public var category: UInt16 { rawValue >> 6 }
    public var subcategory: UInt8 { UInt8(rawValue & 0x3F) }

    public static let unknown = Appearance(rawValue: 0x0000)
    public static let genericWatch = Appearance(rawValue: 0x00C0)
    public static let sportsWatch = Appearance(rawValue: 0x00C1)
    public static let smartwatch = Appearance(rawValue: 0x00C2)
    public static let genericHeartRateSensor = Appearance(rawValue: 0x0340)
    public static let heartRateBelt = Appearance(rawValue: 0x0341)
    public static let genericRunningWalkingSensor = Appearance(rawValue: 0x0440)
    public static let inShoeRunningWalkingSensor = Appearance(rawValue: 0x0441)
    public static let onShoeRunningWalkingSensor = Appearance(rawValue: 0x0442)
    public static let onHipRunningWalkingSensor = Appearance(rawValue: 0x0443)
    public static let genericWearableComputer = Appearance(rawValue: 0x0180)
    public static let wristWorn = Appearance(rawValue: 0x0181)

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        rawValue = try input.readUInt16LE("appearance")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt16LE(rawValue)
    }
}
