import BandReader
import Foundation
import Testing

/// ``SystemTimeZone`` (the C library's view of the host zone) against Foundation's
/// `TimeZone.current` (ICU's) in this process, whatever zone the machine is in. Other zones are
/// checked end to end with `TZ` set for a `band` process (EndToEndTests/HostTimeZoneTests).
@Suite struct SystemTimeZoneTests {
    /// Every six hours for a year from 2026-01-01T00:00:00Z, plus fractions of a second.
    static let instants: [Date] = stride(from: 1_767_225_600.0, to: 1_767_225_600 + 366 * 86_400, by: 6 * 3600)
        .map { Date(timeIntervalSince1970: $0) } + [Date(timeIntervalSince1970: 1_796_032_800.9)]

    @Test func offsetsAreFoundationsForTheHostZone() {
        let host = SystemTimeZone()
        let foundation = TimeZone.current
        let wrong = Self.instants.filter { host.secondsFromGMT(for: $0) != foundation.secondsFromGMT(for: $0) }
        #expect(wrong.isEmpty, "zone \(host.identifier): first differences \(wrong.prefix(3))")
    }

    @Test func daylightSavingPartsAreFoundations() {
        let host = SystemTimeZone()
        let foundation = TimeZone.current
        // tzdata models Dublin and Morocco with a negative DST (Dublin's winter GMT and Morocco's
        // Ramadan +00 are "DST" −1 h), which ICU flips to a positive one; the C library's split
        // there is all standard time, DST 0.
        let negativeDaylightSaving = ["Europe/Dublin", "Eire", "Africa/Casablanca", "Africa/El_Aaiun"].contains(host.identifier)
        let wrong = Self.instants.filter {
            let daylight = host.daylightSavingTimeOffset(for: $0)
            return daylight != foundation.daylightSavingTimeOffset(for: $0) && !(negativeDaylightSaving && daylight == 0)
        }
        #expect(wrong.isEmpty, "zone \(host.identifier): first differences \(wrong.prefix(3))")
    }

    @Test func clockSettingFromTheHostZoneIsTheOneFromFoundations() throws {
        for date in Self.instants.prefix(40) {
            let host = try BandClockSetting(date: date, timeZone: SystemTimeZone())
            let foundation = try BandClockSetting(date: date, timeZone: TimeZone.current)
            #expect(host.currentTime == foundation.currentTime)
            #expect(host.utcOffsetSeconds == foundation.utcOffsetSeconds)
        }
    }
}
