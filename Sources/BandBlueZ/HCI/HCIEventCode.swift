/// An HCI event code (Core 5.4 Vol 4 Part E §7.7). Open.
public struct HCIEventCode: RawRepresentable, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let disconnectionComplete = HCIEventCode(rawValue: 0x05)
    public static let commandComplete = HCIEventCode(rawValue: 0x0E)
    public static let commandStatus = HCIEventCode(rawValue: 0x0F)
    public static let leMeta = HCIEventCode(rawValue: 0x3E)
}

/// An LE Meta event's subevent code (Vol 4 Part E §7.7.65). Open.
public struct LESubeventCode: RawRepresentable, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let connectionComplete = LESubeventCode(rawValue: 0x01)
    public static let advertisingReport = LESubeventCode(rawValue: 0x02)
    public static let enhancedConnectionComplete = LESubeventCode(rawValue: 0x0A)
    public static let extendedAdvertisingReport = LESubeventCode(rawValue: 0x0D)
}
