import Foundation

/// What the reader writes to the band's Current Time Service: local wall-clock time (Current
/// Time 0x2A2B) and the zone with its DST part separately (Local Time Information 0x2A0F), both
/// computed for one instant in one time zone.
///
/// CTS 1.1 §3.1 carries *local* time; §3.2 splits the offset into the standard zone and the DST
/// offset, each in 15-minute units, so India (+5:30 → 22), Nepal (+5:45 → 23), Newfoundland
/// (−3:30 → −14) and Lord Howe's half-hour DST (DST code 2) survive. itd truncates zones to whole
/// hours and writes Sunday as 0 (peers.md); here Monday is 1 and Sunday 7 (GATT Day of Week).
public struct BandClockSetting: Equatable, Sendable {
    public var year: UInt16
    public var month: UInt8
    public var day: UInt8
    public var hours: UInt8
    public var minutes: UInt8
    public var seconds: UInt8
    /// 1 = Monday … 7 = Sunday.
    public var dayOfWeek: UInt8
    /// 1/256 s.
    public var fractions256: UInt8
    /// Standard offset from UTC in 15-minute units (without DST).
    public var timeZoneQuarterHours: Int8
    /// DST offset code of Local Time Information: 0, 2 (+0.5 h), 4 (+1 h), 8 (+2 h), 255 unknown.
    public var dstOffsetCode: UInt8
    /// Total offset (zone + DST) in seconds east of UTC.
    public var utcOffsetSeconds: Int

    public init(date: Date, timeZone: TimeZone) throws(ClockSettingError) {
        let total = timeZone.secondsFromGMT(for: date)
        let dst = Int(timeZone.daylightSavingTimeOffset(for: date))
        let standard = total - dst
        guard standard % 900 == 0, (-48 * 900...56 * 900).contains(standard) else {
            throw ClockSettingError(reason: "time zone \(timeZone.identifier) is UTC\(standard >= 0 ? "+" : "")\(Double(standard) / 3600) h, not a whole number of quarter hours within −12…+14 h")
        }
        switch dst {
        case 0: dstOffsetCode = 0
        case 1800: dstOffsetCode = 2
        case 3600: dstOffsetCode = 4
        case 7200: dstOffsetCode = 8
        default: dstOffsetCode = 255
        }
        timeZoneQuarterHours = Int8(standard / 900)
        utcOffsetSeconds = total

        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday, .nanosecond], from: date)
        guard let year = parts.year, (1582...9999).contains(year) else {
            throw ClockSettingError(reason: "year \(parts.year ?? 0) is outside what Current Time can carry (1582–9999)")
        }
        self.year = UInt16(year)
        month = UInt8(parts.month ?? 1)
        day = UInt8(parts.day ?? 1)
        hours = UInt8(parts.hour ?? 0)
        minutes = UInt8(parts.minute ?? 0)
        seconds = UInt8(parts.second ?? 0)
        // Foundation: 1 = Sunday … 7 = Saturday. GATT: 1 = Monday … 7 = Sunday.
        let weekday = parts.weekday ?? 1
        dayOfWeek = UInt8(weekday == 1 ? 7 : weekday - 1)
        fractions256 = UInt8(min(255, (parts.nanosecond ?? 0) / 3_906_250))
    }
}

/// The host's clock or zone cannot be expressed in Current Time Service terms.
public struct ClockSettingError: Error, Equatable, Sendable, CustomStringConvertible {
    public var reason: String
    public var description: String { reason }
}
