import BandGATT
import FoundationEssentials

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

    public init(date: Date, timeZone: some LocalTimeRules) throws(ClockSettingError) {
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

        // Local wall-clock time is UTC plus the offset, on the proleptic Gregorian calendar.
        let utc = date.timeIntervalSince1970.rounded(.down)
        guard utc.magnitude < 1e15 else { throw ClockSettingError(reason: "\(date) is outside what Current Time can carry (1582–9999)") }
        let local = Int64(utc) + Int64(total)
        guard (Self.firstLocalSecond...Self.lastLocalSecond).contains(local) else {
            throw ClockSettingError(reason: "\(date) is outside what Current Time can carry (1582–9999)")
        }
        let nanoseconds = Int((date.timeIntervalSince1970 - utc) * 1_000_000_000)
        let time = CurrentTime(secondsSince1970: local, fractions256: UInt8(min(255, nanoseconds / 3_906_250)))
        year = time.dateTime.year
        month = time.dateTime.month
        day = time.dateTime.day
        hours = time.dateTime.hours
        minutes = time.dateTime.minutes
        seconds = time.dateTime.seconds
        dayOfWeek = time.dayOfWeek.rawValue
        fractions256 = time.fractions256
    }

    /// Local wall-clock seconds since 1970 of 1582-01-01 00:00:00 and 9999-12-31 23:59:59, the
    /// years a GATT Date Time carries.
    private static let firstLocalSecond = DateTime(year: 1582, month: 1, day: 1, hours: 0, minutes: 0, seconds: 0).secondsSince1970!
    private static let lastLocalSecond = DateTime(year: 9999, month: 12, day: 31, hours: 23, minutes: 59, seconds: 59).secondsSince1970!
}

/// The host's clock or zone cannot be expressed in Current Time Service terms.
public struct ClockSettingError: Error, Equatable, Sendable, CustomStringConvertible {
    public var reason: String
    public var description: String { reason }
}
