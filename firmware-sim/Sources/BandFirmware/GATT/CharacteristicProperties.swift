/// Characteristic properties, the first byte of a characteristic declaration's value
/// (Core 5.4 Vol 3 Part G §3.3.1.1, Table 3.5).
public struct CharacteristicProperties: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let read = CharacteristicProperties(rawValue: 0x02)
    public static let writeWithoutResponse = CharacteristicProperties(rawValue: 0x04)
    public static let write = CharacteristicProperties(rawValue: 0x08)
    public static let notify = CharacteristicProperties(rawValue: 0x10)
    public static let indicate = CharacteristicProperties(rawValue: 0x20)

    /// A characteristic with either property gets a Client Characteristic Configuration descriptor.
    public var needsConfiguration: Bool { !isDisjoint(with: [.notify, .indicate]) }
}
