/// A controller's settings bit field (BlueZ doc/mgmt-api.txt, "Read Controller Information":
/// Current_Settings / Supported_Settings), little-endian 32-bit on the wire.
public struct AdapterSettings: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let powered = AdapterSettings(rawValue: 1 << 0)
    public static let connectable = AdapterSettings(rawValue: 1 << 1)
    public static let fastConnectable = AdapterSettings(rawValue: 1 << 2)
    public static let discoverable = AdapterSettings(rawValue: 1 << 3)
    public static let bondable = AdapterSettings(rawValue: 1 << 4)
    public static let linkLevelSecurity = AdapterSettings(rawValue: 1 << 5)
    public static let secureSimplePairing = AdapterSettings(rawValue: 1 << 6)
    public static let bredr = AdapterSettings(rawValue: 1 << 7)
    public static let highSpeed = AdapterSettings(rawValue: 1 << 8)
    public static let lowEnergy = AdapterSettings(rawValue: 1 << 9)
    public static let advertising = AdapterSettings(rawValue: 1 << 10)
    public static let secureConnections = AdapterSettings(rawValue: 1 << 11)
    public static let debugKeys = AdapterSettings(rawValue: 1 << 12)
    public static let privacy = AdapterSettings(rawValue: 1 << 13)
    public static let staticAddress = AdapterSettings(rawValue: 1 << 15)

    private static let names: [(AdapterSettings, String)] = [
        (.powered, "powered"), (.connectable, "connectable"), (.fastConnectable, "fast-connectable"),
        (.discoverable, "discoverable"), (.bondable, "bondable"), (.linkLevelSecurity, "link-security"),
        (.secureSimplePairing, "ssp"), (.bredr, "br/edr"), (.highSpeed, "hs"), (.lowEnergy, "le"),
        (.advertising, "advertising"), (.secureConnections, "secure-conn"), (.debugKeys, "debug-keys"),
        (.privacy, "privacy"), (.staticAddress, "static-addr"),
    ]

    public var description: String {
        Self.names.filter { contains($0.0) }.map(\.1).joined(separator: " ")
    }
}
