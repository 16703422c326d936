import BandATT
import BandGATT
import BandProtocol
import BandWire

/// Current Time Service 1.1 on the band: Current Time 0x2A2B (the band's *local* time) and
/// Local Time Information 0x2A0F (zone and DST in 15-minute units).
///
/// A reader writes 0x2A0F first (the instant stays put, local time moves), then 0x2A2B (local
/// time; the band subtracts zone + DST to get UTC). A change that moves the band's local day
/// resets the daily counters; the minute in progress is closed and flagged partial. A time the
/// band's records cannot name (``BandClock/settableSeconds``) is refused with 0xFF Out of Range.
extension BandServices {
    /// Current Time, 10 bytes (``CurrentTime``): the band's local date and time, day of week,
    /// fractions of a second in 1/256, and the last Adjust Reason.
    func writeCurrentTime(into output: inout ByteWriter) {
        let now = core.clock.now(at: trueTime)
        CurrentTime(secondsSince1970: now.seconds + core.clock.offsetSeconds,
                    fractions256: UInt8(now.milliseconds.floorModulo(1000) * 256 / 1000),
                    adjustReason: adjustReason).encode(into: &output)
    }

    func writeCurrentTime(_ value: UnsafeRawBufferPointer) -> WriteOutcome {
        let written: CurrentTime
        switch decodeTimeValue(value, as: CurrentTime.self) {
        case .parsed(let time): written = time
        case .refused(let error): return .refused(error)
        }
        // Unknown fields (year 0, month 0, day 0) cannot set a clock; a stated weekday must be right.
        guard let local = written.secondsSince1970, written.dateTime.month != 0, written.dateTime.day != 0 else {
            return .refused(.outOfRange)
        }
        if written.dayOfWeek != .unknown, Int(written.dayOfWeek.rawValue) != CivilTime(unixSeconds: local).dayOfWeek {
            return .refused(.outOfRange)
        }
        // A time before 1970 or past 2105 cannot be recorded (BandClock.settableSeconds).
        let utc = local - core.clock.offsetSeconds
        guard BandClock.settableSeconds.contains(utc) else { return .refused(.outOfRange) }
        let milliseconds = utc * 1000 + Int64(written.fractions256) * 1000 / 256
        applyClockChange { $0.set(BandInstant(milliseconds: milliseconds), at: trueTime) }
        adjustReason = written.adjustReason
        host.report(.clockSet(instant: BandInstant(milliseconds: milliseconds), local: written, offset: core.clock.utcOffset))
        return .accepted(.timeChanged)
    }

    func writeLocalTimeInformation(_ value: UnsafeRawBufferPointer) -> WriteOutcome {
        let information: LocalTimeInformation
        switch decodeTimeValue(value, as: LocalTimeInformation.self) {
        case .parsed(let parsed): information = parsed
        case .refused(let error): return .refused(error)
        }
        applyClockChange {
            $0.timeZone = information.timeZone
            $0.dstOffset = information.dstOffset.rawValue
        }
        adjustReason = [.changeOfTimeZone, .changeOfDST]
        host.report(.timeZoneSet(information))
        return .accepted(.timeChanged)
    }

    /// Wrong size → 0x0D Invalid Attribute Value Length; a field out of its range → 0xFF Out of Range (CSS Part B §1.2).
    private func decodeTimeValue<T: WireDecodable>(_ value: UnsafeRawBufferPointer, as: T.Type) -> ControlPointParse<T> {
        do throws(ParseError) {
            return .parsed(try T(parsingAll: value))
        } catch {
            return .refused(error.kind == .invalidValue ? .outOfRange : .invalidAttributeValueLength)
        }
    }

    /// Applies `change` to the band's clock around the bookkeeping a clock change needs.
    private func applyClockChange(_ change: (inout BandClock) -> Void) {
        if let recorded = core.clockWillChange() { recordedMinute(recorded) }
        change(&core.clock)
        _ = core.clockDidChange(at: trueTime)
    }
}
