import CivilTime
import Testing

@Suite struct CivilCalendarTests {
    /// Walks day by day from 1600-01-01 to 2600-01-01 (plus the days before 1970 and after 2400
    /// that the band's and the store's years reach) with a naive calendar that only knows month
    /// lengths, and checks both directions at every day.
    @Test func everyDayRoundTripsAgainstANaiveCalendar() {
        var (year, month, day) = (1600, 1, 1)
        let first = CivilCalendar.daysSince1970(year: 1600, month: 1, day: 1)
        #expect(first == -135_140)
        var days = first
        while year < 2600 {
            #expect(CivilCalendar.daysSince1970(year: year, month: month, day: day) == days, "\(year)-\(month)-\(day)")
            let civil = CivilCalendar.date(daysSince1970: days)
            #expect(civil.year == year && civil.month == month && civil.day == day, "day \(days)")
            day += 1
            if day > naiveMonthLength(year, month) {
                day = 1
                month += 1
                if month > 12 { month = 1; year += 1 }
            }
            days += 1
        }
        #expect(days == CivilCalendar.daysSince1970(year: 2600, month: 1, day: 1))
    }

    /// Far outside everyday years (proleptic Gregorian before year 1, beyond 9999) the two
    /// directions still invert each other.
    @Test func distantDaysInvert() {
        for days in stride(from: -1_000_000_000, through: 1_000_000_000, by: 9_999_991) {
            let civil = CivilCalendar.date(daysSince1970: days)
            #expect((1...12).contains(civil.month) && civil.day >= 1 && civil.day <= CivilCalendar.daysInMonth(year: civil.year, month: civil.month))
            #expect(CivilCalendar.daysSince1970(year: civil.year, month: civil.month, day: civil.day) == days)
        }
    }

    @Test func knownDates() {
        #expect(CivilCalendar.daysSince1970(year: 1970, month: 1, day: 1) == 0)
        #expect(CivilCalendar.daysSince1970(year: 1969, month: 12, day: 31) == -1)
        #expect(CivilCalendar.daysSince1970(year: 2000, month: 3, day: 1) == 11_017)
        #expect(CivilCalendar.daysSince1970(year: 2026, month: 11, day: 30) == 20_787)
        #expect(CivilCalendar.daysSince1970(year: 0, month: 3, day: 1) == -719_468)      // the algorithm's epoch
        #expect(CivilCalendar.daysSince1970(year: 9999, month: 12, day: 31) == 2_932_896)
        #expect(CivilCalendar.daysSince1970(year: 1582, month: 10, day: 15) == -141_427) // the Gregorian reform
        #expect(CivilCalendar.date(daysSince1970: -719_469) == (year: 0, month: 2, day: 29))  // year 0 is a leap year
    }

    @Test func leapYears() {
        #expect(CivilCalendar.isLeapYear(2024) && CivilCalendar.isLeapYear(2000) && CivilCalendar.isLeapYear(1600) && CivilCalendar.isLeapYear(0))
        #expect(!CivilCalendar.isLeapYear(1900) && !CivilCalendar.isLeapYear(2100) && !CivilCalendar.isLeapYear(2026))
        #expect(CivilCalendar.daysInMonth(year: 2024, month: 2) == 29)
        #expect(CivilCalendar.daysInMonth(year: 1900, month: 2) == 28)
        #expect(CivilCalendar.daysInMonth(year: 2026, month: 4) == 30)
        #expect(CivilCalendar.daysInMonth(year: 2026, month: 12) == 31)
        for year in 1583...2600 {
            let length = CivilCalendar.daysSince1970(year: year + 1, month: 1, day: 1) - CivilCalendar.daysSince1970(year: year, month: 1, day: 1)
            #expect(length == (CivilCalendar.isLeapYear(year) ? 366 : 365), "\(year)")
        }
    }

    @Test func isoWeekdays() {
        #expect(CivilCalendar.isoWeekday(daysSince1970: 0) == 4)        // 1970-01-01, a Thursday
        #expect(CivilCalendar.isoWeekday(daysSince1970: -1) == 3)
        #expect(CivilCalendar.isoWeekday(daysSince1970: 20_787) == 1)   // 2026-11-30, a Monday
        for days in -800...800 {
            #expect(CivilCalendar.isoWeekday(daysSince1970: days + 7) == CivilCalendar.isoWeekday(daysSince1970: days))
            #expect(CivilCalendar.isoWeekday(daysSince1970: days + 1) == CivilCalendar.isoWeekday(daysSince1970: days) % 7 + 1)
        }
    }

    @Test func floorDivisionRoundsTowardMinusInfinity() {
        #expect(CivilCalendar.floorDivide(-1, 86_400) == (quotient: -1, remainder: 86_399))
        #expect(CivilCalendar.floorDivide(-86_400, 86_400) == (quotient: -1, remainder: 0))
        #expect(CivilCalendar.floorDivide(86_399, 86_400) == (quotient: 0, remainder: 86_399))
        #expect(CivilCalendar.floorDivide(Int64.min, 1000) == (quotient: Int64.min / 1000 - 1, remainder: 192))
        for value in Int64(-5000)...5000 {
            for divisor in [Int64(1), 7, 60, 1000] {
                let (quotient, remainder) = CivilCalendar.floorDivide(value, divisor)
                #expect(quotient * divisor + remainder == value && (0..<divisor).contains(remainder))
            }
        }
    }

    private func naiveMonthLength(_ year: Int, _ month: Int) -> Int {
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    }
}
