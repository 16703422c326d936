import BandGATT
import BandTestSupport
import BandWire
import Testing

@Suite struct TimeTests {
    /// 2026-11-30 09:05:07 + 128/256 s, Monday, set manually.
    static let sample = "ea 07 0b 1e 09 05 07 01 80 01"

    @Test func currentTimeDecodesEveryField() throws {
        let time = try decode(CurrentTime.self, bytes(Self.sample))
        #expect(time.dateTime == DateTime(year: 2026, month: 11, day: 30, hours: 9, minutes: 5, seconds: 7))
        #expect(time.dayOfWeek == .monday)
        #expect(time.fractions256 == 128)
        #expect(time.adjustReason == .manualTimeUpdate)
        #expect(time.secondsSince1970 == 1_796_029_507)
        #expect(time.fractionalSecondsSince1970 == 1_796_029_507.5)
        #expect(time.dateTime.description == "2026-11-30 09:05:07")
        #expect(encoded(time) == bytes(Self.sample))
    }

    @Test func currentTimeFromSecondsComputesTheDateAndWeekday() {
        let time = CurrentTime(secondsSince1970: 1_796_029_507, fractions256: 128, adjustReason: .manualTimeUpdate)
        #expect(encoded(time) == bytes(Self.sample))
    }

    /// Checked against Python's `calendar.timegm` and `isoweekday`.
    @Test(arguments: [
        (Int64(-12_219_206_401), DateTime(year: 1582, month: 10, day: 15, hours: 23, minutes: 59, seconds: 59), UInt8(5)),
        (253_402_300_799, DateTime(year: 9999, month: 12, day: 31, hours: 23, minutes: 59, seconds: 59), 5),
        (951_868_799, DateTime(year: 2000, month: 2, day: 29, hours: 23, minutes: 59, seconds: 59), 2),
        (86399, DateTime(year: 1970, month: 1, day: 1, hours: 23, minutes: 59, seconds: 59), 4),
        (-1, DateTime(year: 1969, month: 12, day: 31, hours: 23, minutes: 59, seconds: 59), 3),
    ])
    func civilConversionMatchesAReferenceCalendar(seconds: Int64, dateTime: DateTime, weekday: UInt8) {
        let time = CurrentTime(secondsSince1970: seconds)
        #expect(time.dateTime == dateTime)
        #expect(time.dayOfWeek.rawValue == weekday)
        #expect(time.secondsSince1970 == seconds)
    }

    @Test func secondsRoundTripAcrossFourHundredYears() {
        var seconds: Int64 = -12_219_206_400  // 1582-10-15
        while seconds < 253_402_300_799 {
            #expect(DateTime(secondsSince1970: seconds).secondsSince1970 == seconds)
            seconds += 86_400 * 37 + 3_601
        }
    }

    @Test func unknownDatePartsHaveNoTimestamp() throws {
        let unknown = try decode(CurrentTime.self, bytes("00 00 00 00 0c 00 00 00 00 00"))
        #expect(unknown.secondsSince1970 == nil)
        #expect(unknown.dayOfWeek == .unknown)
        #expect(unknown.dateTime.description == "????-??-?? 12:00:00")
    }

    @Test(arguments: [
        ("ea 07 0d 1e 09 05 07 01 80 01", 2, "month"),          // month 13
        ("ea 07 02 1e 09 05 07 01 80 01", 3, "day"),            // 30 February
        ("e8 07 02 1e 09 05 07 01 80 01", 3, "day"),            // 30 February 2024
        ("ea 07 0b 20 09 05 07 01 80 01", 3, "day"),            // 32nd
        ("ea 07 0b 1e 18 05 07 01 80 01", 4, "hours"),          // 24:00
        ("ea 07 0b 1e 09 3c 07 01 80 01", 5, "minutes"),
        ("ea 07 0b 1e 09 05 3c 01 80 01", 6, "seconds"),        // no leap second in the format
        ("ea 07 0b 1e 09 05 07 08 80 01", 7, "day of week"),
        ("2d 06 0b 1e 09 05 07 01 80 01", 0, "year"),           // 1581
        ("10 27 0b 1e 09 05 07 01 80 01", 0, "year"),           // 10000
    ])
    func outOfRangeFieldsAreInvalidAtTheirOffset(hex: String, offset: Int, field: String) {
        let error = #expect(throws: ParseError.self) { _ = try decode(CurrentTime.self, bytes(hex)) }
        #expect(error?.kind == .invalidValue)
        #expect(error?.offset == offset)
        #expect(error?.field.description == field)
    }

    @Test func leapDayIsAcceptedInLeapYearsOnly() throws {
        #expect(throws: Never.self) { _ = try decode(DateTime.self, bytes("d0 07 02 1d 00 00 00")) }  // 2000-02-29
        #expect(throws: ParseError(.invalidValue, at: 3, field: "day")) { _ = try decode(DateTime.self, bytes("6c 07 02 1d 00 00 00")) }  // 1900
        #expect(throws: Never.self) { _ = try decode(DateTime.self, bytes("00 00 02 1f 00 00 00")) }  // unknown year: 1–31
    }

    @Test func currentTimeTruncatesAtEveryOffset() {
        #expect(prefixesNotTruncated(CurrentTime.self, bytes(Self.sample)) == [])
    }

    @Test func localTimeInformationGivesTheUTCOffset() throws {
        // UTC+1 with daylight time: 4 × 15 min + 4 × 15 min.
        let cest = try decode(LocalTimeInformation.self, bytes("04 04"))
        #expect(cest.utcOffsetSeconds == 7200)
        #expect(cest.timeZoneSeconds == 3600)
        // India, UTC+5:30: 22 steps.
        #expect(try decode(LocalTimeInformation.self, bytes("16 00")).utcOffsetSeconds == 19800)
        // UTC−12.
        #expect(try decode(LocalTimeInformation.self, bytes("d0 00")).utcOffsetSeconds == -43200)
        let unknown = try decode(LocalTimeInformation.self, bytes("80 ff"))
        #expect(unknown.utcOffsetSeconds == nil)
        #expect(encoded(unknown) == bytes("80 ff"))
    }

    @Test func localTimeInformationRejectsUndefinedValues() {
        #expect(throws: ParseError(.invalidValue, at: 0, field: "time zone")) { _ = try decode(LocalTimeInformation.self, bytes("39 00")) }
        #expect(throws: ParseError(.invalidValue, at: 0, field: "time zone")) { _ = try decode(LocalTimeInformation.self, bytes("cf 00")) }
        #expect(throws: ParseError(.invalidValue, at: 1, field: "DST offset")) { _ = try decode(LocalTimeInformation.self, bytes("00 01")) }
        #expect(throws: ParseError(.invalidValue, at: 1, field: "DST offset")) { _ = try decode(LocalTimeInformation.self, bytes("00 10")) }
        #expect(throws: Never.self) { _ = try decode(LocalTimeInformation.self, bytes("38 08")) }
    }
}
