/// Global message numbers of the FIT profile that BandKit reads or writes.
public enum FitMessageNumber {
    public static let fileID: UInt16 = 0
    public static let session: UInt16 = 18
    public static let lap: UInt16 = 19
    public static let record: UInt16 = 20
    public static let event: UInt16 = 21
    public static let deviceInfo: UInt16 = 23
    public static let activity: UInt16 = 34
    public static let monitoring: UInt16 = 55
    public static let monitoringInfo: UInt16 = 103
    public static let fieldDescription: UInt16 = 206
    public static let developerDataID: UInt16 = 207
}

/// The profile's `file` enum values for `file_id.type`.
public enum FitFileType {
    public static let activity: Int64 = 4
    public static let monitoringA: Int64 = 15
    public static let monitoringB: Int64 = 32
}

/// FIT time: seconds since 1989-12-31T00:00:00Z.
public enum FitTime {
    public static let epochUnixSeconds: Int64 = 631_065_600

    public static func unixSeconds(_ fit: UInt32) -> Int64 { Int64(fit) + epochUnixSeconds }

    /// A time field's value (of any integer type) as a FIT time; nil outside 0 ..< 0xFFFFFFFF
    /// (0xFFFFFFFF is the invalid time of a uint32, so a wider field holding it is no time either).
    public static func time(_ value: Int64?) -> UInt32? {
        guard let value, (0..<Int64(UInt32.max)).contains(value) else { return nil }
        return UInt32(value)
    }

    /// Nil outside what a uint32 FIT time can hold.
    public static func fitSeconds(unix: Int64) -> UInt32? {
        let value = unix - epochUnixSeconds
        return (0..<Int64(UInt32.max)).contains(value) ? UInt32(value) : nil
    }
}

/// Positions: semicircles (2^31 per 180°) ↔ degrees.
public enum FitPosition {
    public static func degrees(_ semicircles: Int64) -> Double { Double(semicircles) * 180 / 2_147_483_648 }
    public static func semicircles(_ degrees: Double) -> Int32 {
        Int32(clamping: Int64((degrees * 2_147_483_648 / 180).rounded()))
    }
}
