import BandATT
import BandProtocol
import BandWire

/// Current Time Service 1.1 on the band: Current Time 0x2A2B (the band's *local* time) and
/// Local Time Information 0x2A0F (zone and DST in 15-minute units).
///
/// A reader writes 0x2A0F first (the instant stays put, local time moves), then 0x2A2B (local
/// time; the band subtracts zone + DST to get UTC). A change that moves the band's local day
/// resets the daily counters; the minute in progress is closed and flagged partial.
extension SimulatedBand {
    /// Current Time, 10 bytes: Exact Time 256 (year u16, month, day, hours, minutes, seconds,
    /// day of week 1–7, fractions256) and Adjust Reason.
    func writeCurrentTime(into output: inout ByteWriter) {
        let now = core.clock.now(at: trueTime)
        let local = CivilTime(unixSeconds: now.seconds + core.clock.offsetSeconds)
        output.writeUInt16LE(UInt16(clamping: local.year))
        output.writeUInt8(UInt8(local.month))
        output.writeUInt8(UInt8(local.day))
        output.writeUInt8(UInt8(local.hour))
        output.writeUInt8(UInt8(local.minute))
        output.writeUInt8(UInt8(local.second))
        output.writeUInt8(UInt8(local.dayOfWeek))
        output.writeUInt8(UInt8(now.milliseconds.floorModulo(1000) * 256 / 1000))
        output.writeUInt8(adjustReason)
    }

    func writeCurrentTime(_ value: UnsafeRawBufferPointer) -> WriteOutcome {
        guard value.count == 10 else { return .refused(.invalidAttributeValueLength) }
        let year = Int(value[0]) | Int(value[1]) << 8
        let civil = CivilTime(year: year, month: Int(value[2]), day: Int(value[3]),
                              hour: Int(value[4]), minute: Int(value[5]), second: Int(value[6]))
        // Year 0 / month 0 mean "unknown" (CTS 1.1 §3.1): a clock cannot be set to unknown.
        guard (1582...9999).contains(year), civil.isValid, value[7] <= 7 else { return .refused(.outOfRange) }
        if value[7] != 0, Int(value[7]) != civil.dayOfWeek { return .refused(.outOfRange) }
        let milliseconds = (civil.unixSeconds - core.clock.offsetSeconds) * 1000 + Int64(value[8]) * 1000 / 256
        applyClockChange { $0.set(BandInstant(milliseconds: milliseconds), at: trueTime) }
        adjustReason = value[9]
        log("clock set to \(BandInstant(milliseconds: milliseconds)) (local \(civil.iso8601UTC.dropLast()), offset \(core.clock.utcOffset))")
        return .accepted(.timeChanged)
    }

    func writeLocalTimeInformation(_ value: UnsafeRawBufferPointer) -> WriteOutcome {
        guard value.count == 2 else { return .refused(.invalidAttributeValueLength) }
        let zone = Int8(bitPattern: value[0])
        let dst = value[1]
        guard (-48...56).contains(zone) || zone == -128, [0, 2, 4, 8, 255].contains(dst) else { return .refused(.outOfRange) }
        applyClockChange {
            $0.timeZone = zone
            $0.dstOffset = dst
        }
        adjustReason = 0x04 | (dst != 0 && dst != 255 ? 0x08 : 0)
        log("time zone set to \(LocalTimeOffset(quarterHours: zone)) + DST \(dst == 255 ? "unknown" : String(Int(dst) * 15)) min")
        return .accepted(.timeChanged)
    }

    /// Applies `change` to the band's clock around the bookkeeping a clock change needs.
    private func applyClockChange(_ change: (inout BandClock) -> Void) {
        if let recorded = core.clockWillChange() { recordedMinute(recorded) }
        change(&core.clock)
        _ = core.clockDidChange(at: trueTime)
    }
}
