/// The properties byte of a characteristic declaration: which procedures the value allows.
///
/// Core 5.4 Vol 3 Part G §3.3.1.1 (Table 3.5); BlueZ `BT_GATT_CHRC_PROP_*`.
///
/// | bit | property |
/// |---|---|
/// | 0x01 | broadcast |
/// | 0x02 | read |
/// | 0x04 | write without response |
/// | 0x08 | write |
/// | 0x10 | notify |
/// | 0x20 | indicate |
/// | 0x40 | authenticated signed writes |
/// | 0x80 | extended properties (descriptor 0x2900 follows) |
public struct CharacteristicProperties: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let broadcast = CharacteristicProperties(rawValue: 0x01)
    public static let read = CharacteristicProperties(rawValue: 0x02)
    public static let writeWithoutResponse = CharacteristicProperties(rawValue: 0x04)
    public static let write = CharacteristicProperties(rawValue: 0x08)
    public static let notify = CharacteristicProperties(rawValue: 0x10)
    public static let indicate = CharacteristicProperties(rawValue: 0x20)
    public static let authenticatedSignedWrites = CharacteristicProperties(rawValue: 0x40)
    public static let extendedProperties = CharacteristicProperties(rawValue: 0x80)
}
