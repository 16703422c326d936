import BandReader
import Foundation
import Testing

/// Current Time and Local Time Information for zones peers get wrong (peers.md: itd truncates
/// half-hour zones and writes Sunday as 0; GB #1451 ignores DST changes).
@Suite struct BandClockSettingTests {
    func date(_ iso: String) -> Date { ISO8601DateFormatter().date(from: iso)! }
    func zone(_ id: String) throws -> TimeZone { try #require(TimeZone(identifier: id)) }

    @Test func indiaIsPlusFiveThirtyWithoutDST() throws {
        let setting = try BandClockSetting(date: date("2026-11-30T10:00:00Z"), timeZone: try zone("Asia/Kolkata"))
        #expect(setting.timeZoneQuarterHours == 22)
        #expect(setting.dstOffsetCode == 0)
        #expect((setting.hours, setting.minutes) == (15, 30))
    }

    @Test func nepalIsPlusFiveFortyFive() throws {
        let setting = try BandClockSetting(date: date("2026-11-30T10:00:00Z"), timeZone: try zone("Asia/Kathmandu"))
        #expect(setting.timeZoneQuarterHours == 23)
        #expect((setting.hours, setting.minutes) == (15, 45))
    }

    @Test func newfoundlandSummerIsMinusThreeThirtyPlusOneHourDST() throws {
        let setting = try BandClockSetting(date: date("2026-07-01T12:00:00Z"), timeZone: try zone("America/St_Johns"))
        #expect(setting.timeZoneQuarterHours == -14)
        #expect(setting.dstOffsetCode == 4)
        #expect(setting.utcOffsetSeconds == -9_000)
        #expect((setting.hours, setting.minutes) == (9, 30))
    }

    @Test func lordHoweSummerHasHalfHourDST() throws {
        let setting = try BandClockSetting(date: date("2026-01-15T00:00:00Z"), timeZone: try zone("Australia/Lord_Howe"))
        #expect(setting.timeZoneQuarterHours == 42)
        #expect(setting.dstOffsetCode == 2)
    }

    @Test func berlinAcrossTheSpringForwardTransition() throws {
        let before = try BandClockSetting(date: date("2026-03-29T00:59:59Z"), timeZone: try zone("Europe/Berlin"))
        let after = try BandClockSetting(date: date("2026-03-29T01:00:00Z"), timeZone: try zone("Europe/Berlin"))
        #expect((before.timeZoneQuarterHours, before.dstOffsetCode, before.hours) == (4, 0, 1))
        #expect((after.timeZoneQuarterHours, after.dstOffsetCode, after.hours) == (4, 4, 3))
    }

    @Test func sundayIsSevenAndMondayIsOne() throws {
        let sunday = try BandClockSetting(date: date("2026-11-29T12:00:00Z"), timeZone: try zone("UTC"))
        let monday = try BandClockSetting(date: date("2026-11-30T12:00:00Z"), timeZone: try zone("UTC"))
        #expect(sunday.dayOfWeek == 7)
        #expect(monday.dayOfWeek == 1)
    }

    @Test func localDateCanDifferFromTheUTCDate() throws {
        let setting = try BandClockSetting(date: date("2026-12-31T23:30:00Z"), timeZone: try zone("Pacific/Kiritimati"))
        #expect((setting.year, setting.month, setting.day, setting.hours) == (2027, 1, 1, 13))
    }

    @Test func fractionsOfASecondAreIn256ths() throws {
        let setting = try BandClockSetting(date: Date(timeIntervalSince1970: 1_796_032_800.5), timeZone: try zone("UTC"))
        #expect(setting.fractions256 == 128)
        #expect((setting.hours, setting.minutes, setting.seconds) == (10, 0, 0))
    }

    @Test func instantsBeforeTheEpochCountDownCorrectly() throws {
        let setting = try BandClockSetting(date: Date(timeIntervalSince1970: -0.25), timeZone: try zone("UTC"))
        #expect((setting.year, setting.month, setting.day, setting.hours, setting.minutes, setting.seconds) == (1969, 12, 31, 23, 59, 59))
        #expect(setting.fractions256 == 192)
        #expect(setting.dayOfWeek == 3)  // a Wednesday
    }

    @Test func yearsCurrentTimeCannotCarryAreRefused() throws {
        #expect(throws: ClockSettingError.self) {
            try BandClockSetting(date: Date(timeIntervalSince1970: 253_402_300_800), timeZone: try zone("UTC"))  // 10000-01-01
        }
        #expect(throws: ClockSettingError.self) {
            try BandClockSetting(date: Date(timeIntervalSince1970: -12_250_000_000), timeZone: try zone("UTC"))  // 1581
        }
        // The limit is on local time: 9999-12-31T10:00:00Z is already 10000-01-01 in Kiritimati (+14).
        #expect(throws: ClockSettingError.self) {
            try BandClockSetting(date: Date(timeIntervalSince1970: 253_402_250_400), timeZone: try zone("Pacific/Kiritimati"))
        }
    }
}
