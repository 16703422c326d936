import BandGATT
import BandReader
import BandWire
import Foundation
import Testing

/// The band-clock observation and the decisions to write its zone and time, fed the values the
/// reads return, without a link.
@Suite struct ClockObservationTests {
    static let host = Date(timeIntervalSince1970: 1_796_032_800)       // 2026-12-01T08:00:00Z
    static let berlin = TimeZone(identifier: "Europe/Berlin")!

    /// What a band set to `date` in `zone` answers for Local Time Information and Current Time.
    static func bandValues(_ date: Date, _ zone: TimeZone) throws -> (zone: [UInt8], time: [UInt8]) {
        let setting = try BandClockSetting(date: date, timeZone: zone)
        return (setting.localTimeInformation.encodedBytes(capacity: 2), setting.currentTime.encodedBytes(capacity: 10))
    }

    func observe(band: Date, zone: TimeZone, readsAt readTime: Date) throws -> ClockObservation {
        let values = try Self.bandValues(band, zone)
        var clock = ClockObservation(hasCurrentTime: true)
        clock.readSent(at: readTime)
        clock.readSent(at: readTime.addingTimeInterval(5))     // only the first read counts
        values.zone.withUnsafeBytes { clock.zoneRead($0) }
        values.time.withUnsafeBytes { clock.timeRead($0) }
        return clock
    }

    @Test(arguments: [
        // band ahead of the host by (s), tolerance 2 s → write the time?
        (0, false), (2, false), (3, true), (-3, true), (3_600, true),
    ])
    func timeIsWrittenOnlyBeyondTheTolerance(_ ahead: Int, _ writes: Bool) throws {
        let clock = try observe(band: Self.host.addingTimeInterval(TimeInterval(ahead)), zone: Self.berlin, readsAt: Self.host)
        #expect(clock.bandOffset(fromHost: Self.host) == ahead)
        #expect(clock.timeNeedsWriting(zoneChanged: false, host: Self.host, tolerance: .seconds(2)) == writes)
        #expect(clock.timeNeedsWriting(zoneChanged: true, host: Self.host, tolerance: .seconds(2)), "a new zone always rewrites the time")
    }

    @Test func theBandsLocalTimeIsTurnedIntoUTCWithItsOwnZone() throws {
        let clock = try observe(band: Self.host.addingTimeInterval(7), zone: Self.berlin, readsAt: Self.host)
        let observation = try #require(clock.observation(fallback: Self.host.addingTimeInterval(60)))
        #expect(observation.bandTime == 1_796_032_807)
        #expect(observation.hostTime == Self.host, "paired with the host time of the first read")
        #expect(!clock.zoneNeedsWriting(try BandClockSetting(date: Self.host, timeZone: Self.berlin)))
        #expect(clock.zoneNeedsWriting(try BandClockSetting(date: Self.host, timeZone: TimeZone(identifier: "Asia/Kolkata")!)))
    }

    @Test func aWrittenClockIsTheObservation() throws {
        var clock = try observe(band: Self.host.addingTimeInterval(-500), zone: Self.berlin, readsAt: Self.host)
        let written = Self.host.addingTimeInterval(1.5)
        clock.timeWritten(at: written)
        let observation = try #require(clock.observation(fallback: Self.host))
        #expect(observation.bandTime == 1_796_032_801)
        // The band showed that second from its start, not from the half second it was written at.
        #expect(observation.hostTime == Self.host.addingTimeInterval(1))
    }

    @Test func nothingReadMeansEverythingIsWrittenAndNothingObserved() throws {
        var clock = ClockObservation(hasCurrentTime: true)
        #expect(clock.observation(fallback: Self.host) == nil)
        #expect(clock.bandOffset(fromHost: Self.host) == nil)
        #expect(clock.zoneNeedsWriting(try BandClockSetting(date: Self.host, timeZone: Self.berlin)))
        #expect(clock.timeNeedsWriting(zoneChanged: false, host: Self.host, tolerance: .seconds(2)))
        // Malformed values are ignored, as the session ignores them.
        [UInt8](repeating: 0xFF, count: 3).withUnsafeBytes { clock.timeRead($0) }
        #expect(clock.bandOffset(fromHost: Self.host) == nil)
    }

    @Test func aStrapWithoutCurrentTimeHasNoObservation() throws {
        var clock = ClockObservation(hasCurrentTime: false)
        clock.timeWritten(at: Self.host)
        #expect(clock.observation(fallback: Self.host) == nil)
    }

    /// Written at 08:00:00.75, the band shows 08:00:00 from 08:00:00.00 host time: a stamp an
    /// instant later is 08:00:00.x, not 07:59:59.x (it was paired with the .75 instant, so
    /// readings up to a second old were filed under the previous minute).
    @Test func aWrittenClockIsObservedAtItsWholeSecond() throws {
        var clock = ClockObservation(hasCurrentTime: true)
        let written = Self.host.addingTimeInterval(0.75)
        clock.timeWritten(at: written)
        let observation = try #require(clock.observation(fallback: Self.host))
        #expect(observation.bandTime == 1_796_032_800)
        #expect(observation.hostTime == Self.host)
        var estimator = BandClockEstimator()
        estimator.observe(seconds: observation.bandTime, at: observation.hostTime)
        #expect(try #require(estimator.estimate(at: written.addingTimeInterval(0.1))) >= 1_796_032_800.85 - 1e-6)
    }
}
