import BandWire

/// What the wearer was doing in a minute, as the band's own motion detection judged it: byte 15
/// of ``MinuteRecord``. Together with ``MinuteRecordFlags/sessionStart`` it marks the band's
/// walk and run *sessions*, which a reader turns into workouts (docs/protocol.md, "Activity
/// sessions").
///
/// Open: a value this version does not know (a newer band's cycling, say) decodes, re-encodes
/// unchanged and is reported as unknown, never refused. 0 is what every band before this
/// extension sent in the byte (then "reserved"), so an old band's records read as "no session".
///
/// | value | meaning |
/// |---|---|
/// | 0 | none or unknown: no walk or run session in this minute |
/// | 1 | walking session |
/// | 2 | running session |
/// | 3–255 | reserved for other activities; kept |
public struct MinuteActivity: RawRepresentable, Hashable, Sendable, WireCodable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let none = MinuteActivity(rawValue: 0)
    public static let walking = MinuteActivity(rawValue: 1)
    public static let running = MinuteActivity(rawValue: 2)

    /// True for every value but ``none``: the minute belongs to a session.
    public var isSession: Bool { rawValue != 0 }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        rawValue = try input.readUInt8("minute activity")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(rawValue)
    }
}
