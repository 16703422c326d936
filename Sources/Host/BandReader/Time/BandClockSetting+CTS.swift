import BandGATT

extension BandClockSetting {
    /// Current Time (0x2A2B): local wall-clock time, with "manual time update" as the reason
    /// (CTS 1.1 §3.1.2.1) — the reader is setting it, not an external reference.
    public var currentTime: CurrentTime {
        CurrentTime(dateTime: DateTime(year: year, month: month, day: day, hours: hours, minutes: minutes, seconds: seconds),
                    dayOfWeek: CurrentTime.DayOfWeek(rawValue: dayOfWeek), fractions256: fractions256,
                    adjustReason: [.manualTimeUpdate])
    }

    /// Local Time Information (0x2A0F): standard zone and DST offset, separately.
    public var localTimeInformation: LocalTimeInformation {
        LocalTimeInformation(timeZone: timeZoneQuarterHours, dstOffset: LocalTimeInformation.DSTOffset(rawValue: dstOffsetCode))
    }
}
