/// Bits of ``LiveActivity/flags``. Unknown bits are kept (an option set over the raw byte).
///
/// | bit | meaning |
/// |---|---|
/// | 0 | worn: the band is on a wrist right now |
/// | 1 | clock set: a reader has set the band's clock since it was first booted |
/// | 2–7 | reserved, sent as 0, ignored by readers |
public struct LiveActivityFlags: OptionSet, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let worn = LiveActivityFlags(rawValue: 0x01)
    public static let clockSet = LiveActivityFlags(rawValue: 0x02)
}
