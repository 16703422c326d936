import Foundation
import HealthModel
import Testing

/// `TimeParsing.format` is HealthModel's own RFC 3339 writer (FoundationEssentials has no
/// `ISO8601DateFormatter`); it must print exactly what that formatter printed before.
@Suite struct TimeFormattingTests {
    static let zones = ["UTC", "Europe/Berlin", "America/St_Johns", "Asia/Kathmandu", "Pacific/Chatham", "America/Los_Angeles"]
    static let instants: [Double] = [
        0, -1, -86_400.5, 951_782_400,            // 1970, just before it, 1969 with a fraction, 2000-02-29
        1_796_032_800, 1_796_032_800.25,          // 2026-11-30T10:00:00Z, with a quarter second
        1_796_032_800.999_6, 1_774_746_000,       // a fraction that rounds up to the next second; Berlin's spring forward
        4_102_444_799, 253_402_300_799,           // 2099-12-31T23:59:59Z, 9999-12-31T23:59:59Z
    ]

    func reference(_ date: Date, _ zone: TimeZone) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = zone
        formatter.formatOptions = [.withInternetDateTime]
        if date.timeIntervalSince1970.truncatingRemainder(dividingBy: 1) != 0 { formatter.formatOptions.insert(.withFractionalSeconds) }
        return formatter.string(from: date)
    }

    @Test(arguments: zones)
    func matchesISO8601DateFormatter(_ name: String) throws {
        let zone = try #require(TimeZone(identifier: name))
        for seconds in Self.instants {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(TimeParsing.format(date, in: zone) == reference(date, zone), "\(seconds) in \(name)")
        }
    }

    @Test func fixedOffsetsPrintZForUTCAndSignedHoursAndMinutesOtherwise() {
        let date = Date(timeIntervalSince1970: 1_796_032_800)
        #expect(TimeParsing.format(date, utcOffsetSeconds: 0) == "2026-11-30T10:00:00Z")
        #expect(TimeParsing.format(date, utcOffsetSeconds: 20_700) == "2026-11-30T15:45:00+05:45")
        #expect(TimeParsing.format(date, utcOffsetSeconds: -12_600) == "2026-11-30T06:30:00-03:30")
        #expect(TimeParsing.format(Date(timeIntervalSince1970: 1_796_032_800.25), utcOffsetSeconds: 0) == "2026-11-30T10:00:00.250Z")
        #expect(TimeParsing.format(Date(timeIntervalSince1970: -0.5), utcOffsetSeconds: 0) == "1969-12-31T23:59:59.500Z")
    }

    @Test func formattedInstantsParseBackToThemselves() throws {
        for seconds in Self.instants where seconds < 253_402_214_400 {  // local time stays in four-digit years
            for offset in [0, 3600, -9000, 45_900] {
                let text = TimeParsing.format(Date(timeIntervalSince1970: seconds), utcOffsetSeconds: offset)
                let parsed = try #require(TimeParsing.instant(text, defaultZone: .gmt), "\(text)")
                #expect(abs(parsed.timeIntervalSince1970 - seconds) < 0.001, "\(text)")
            }
        }
    }
}
