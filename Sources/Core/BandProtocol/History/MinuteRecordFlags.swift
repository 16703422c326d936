/// Bits of ``MinuteRecord/flags``. Unknown bits are kept.
///
/// | bit | meaning |
/// |---|---|
/// | 0 | worn during (part of) the minute |
/// | 1 | heart rate present: avg/min/max are valid; when clear the three bytes are 0 ("not measured") |
/// | 2 | clock set: the band's clock had been set by a reader when the minute was recorded |
/// | 3 | partial: the band booted, or its clock was changed, during this minute, so it covers less than 60 s |
/// | 4 | session start: the first minute of a walk or run session (``MinuteRecord/activity`` is not ``MinuteActivity/none``) |
/// | 5–7 | reserved, sent as 0, ignored by readers |
public struct MinuteRecordFlags: OptionSet, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let worn = MinuteRecordFlags(rawValue: 0x01)
    public static let heartRatePresent = MinuteRecordFlags(rawValue: 0x02)
    public static let clockSet = MinuteRecordFlags(rawValue: 0x04)
    public static let partial = MinuteRecordFlags(rawValue: 0x08)
    /// This minute opens a new session of its ``MinuteRecord/activity``; the session runs through
    /// the following records of the same activity up to the next record with another activity
    /// or with this bit set. Only with an activity: a decoder refuses it on a ``MinuteActivity/none`` minute.
    public static let sessionStart = MinuteRecordFlags(rawValue: 0x10)
}
