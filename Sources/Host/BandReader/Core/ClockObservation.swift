import BandGATT
import FoundationEssentials

/// What the reader learns about the band's clock at connect, and what it decides to write, with
/// no I/O: the reads' values and times go in, decisions and the (band time, host time) pair
/// that stamps live readings come out. ``BandSession`` feeds it from its reads and writes;
/// ``RecordedSessionFeed`` feeds the same type from the recorded ones.
///
/// | event | effect |
/// |---|---|
/// | first clock read sent at host time t | t is the host time the band's reading is paired with |
/// | Local Time Information read | the band's offset (zone + DST), for turning its local Current Time into UTC |
/// | Current Time read | the band's UTC time = its local time − its offset (0 when the zone was not read) |
/// | Current Time written at host time w | the band's clock is w: the observation is (⌊w⌋, ⌊w⌋) |
/// | (no write) | the band's reading, its 1/256 s fraction included, against the first read's host time |
///
/// Without a Current Time characteristic there is nothing to observe (a plain strap: live
/// readings get host time).
public struct ClockObservation: Sendable {
    /// Whether the device has a Current Time characteristic at all.
    public let hasCurrentTime: Bool
    /// The host time the first clock read was sent at.
    public private(set) var readStart: Date?
    /// The band's zone as read, if it was.
    public private(set) var bandZone: LocalTimeInformation?
    /// The band's clock in UTC seconds as read, if it was.
    public private(set) var bandUTC: Int64?
    /// The 1/256 s fraction of the second the band read (0 from a band that does not fill it).
    public private(set) var bandFraction256: UInt8 = 0
    /// The host time the reader wrote the band's clock at, if it did.
    public private(set) var written: Date?

    public init(hasCurrentTime: Bool) { self.hasCurrentTime = hasCurrentTime }

    /// A read of Local Time Information or Current Time was sent at `time` (only the first counts).
    public mutating func readSent(at time: Date) {
        if readStart == nil { readStart = time }
    }

    /// The band's Local Time Information value (ignored when malformed, as the session does).
    public mutating func zoneRead(_ value: UnsafeRawBufferPointer) {
        if let zone = try? LocalTimeInformation(parsingAll: value) { bandZone = zone }
    }

    /// The band's Current Time value (ignored when malformed or without a valid date).
    public mutating func timeRead(_ value: UnsafeRawBufferPointer) {
        if let time = try? CurrentTime(parsingAll: value), let local = time.secondsSince1970 {
            bandUTC = local - Int64(bandZone?.utcOffsetSeconds ?? 0)
            bandFraction256 = time.fractions256
        }
    }

    /// The reader wrote the band's clock with the host time `time`.
    public mutating func timeWritten(at time: Date) { written = time }

    /// How far the band's clock is ahead of `host`, in whole seconds (nil when not read).
    public func bandOffset(fromHost host: Date) -> Int? {
        bandUTC.map { Int($0 - Int64(host.timeIntervalSince1970.rounded(.down))) }
    }

    /// Whether the band's zone must be written to match `setting`.
    public func zoneNeedsWriting(_ setting: BandClockSetting) -> Bool { bandZone != setting.localTimeInformation }

    /// Whether the band's time must be written: its zone was just changed, or it was not read,
    /// or it is more than `tolerance` away from `host`.
    public func timeNeedsWriting(zoneChanged: Bool, host: Date, tolerance: Duration) -> Bool {
        let drift = bandUTC.map { abs($0 - Int64(host.timeIntervalSince1970.rounded(.down))) } ?? .max
        return zoneChanged || drift > Int64(tolerance.components.seconds)
    }

    /// The band time and the host time it was seen at, for stamping live readings: the written
    /// time if the reader set the clock, else the band's reading against the host time the
    /// reads started at (`fallback` when none was seen sent).
    public func observation(fallback: Date) -> (bandTime: Double, hostTime: Date)? {
        guard hasCurrentTime else { return nil }
        if let written {
            // The band's clock was set to `written` (Current Time carries 1/256 s): it showed the
            // whole second at that second's host instant. Pairing the whole second with the
            // fractional instant put every stamp up to a second late, filing readings near a
            // minute's start under the previous minute.
            let second = written.timeIntervalSince1970.rounded(.down)
            return (second, Date(timeIntervalSince1970: second))
        }
        guard let bandUTC else { return nil }
        // The fraction is the band's own (1/256 of a band second): kept on the band's side, it
        // stays right for a clock that runs faster than the host's, where taking it off the
        // host time would misplace the reading by up to a second times the band's pace.
        return (Double(bandUTC) + Double(bandFraction256) / 256, readStart ?? fallback)
    }
}
