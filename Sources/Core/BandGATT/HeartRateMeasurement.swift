import BandWire

/// Heart Rate Measurement (0x2A37), notified by the Heart Rate service (0x180D).
///
/// Heart Rate Service 1.0 §3.1 and GATT XML `heart_rate_measurement.xml`; field order as
/// Wireshark `packet-btatt.c` (`case 0x2A37`) parses it.
///
/// | offset | size | field | present when |
/// |---|---|---|---|
/// | 0 | 1 | flags | always |
/// | 1 | 1 or 2 | heart rate, bpm: uint8, or uint16 when flags bit 0 | always |
/// | next | 2 | energy expended, kJ since the last reset, saturating at 65535 | flags bit 3 |
/// | next | 2·n | RR-intervals, 1/1024 s, oldest first; n = remaining bytes / 2 | flags bit 4 |
///
/// Flags: bit 0 value format; bits 1–2 sensor contact (0b0x = not supported, 0b10 = supported,
/// no contact, 0b11 = contact); bit 3 energy expended present; bit 4 RR-intervals present;
/// bits 5–7 reserved.
public struct HeartRateMeasurement: WireCodable, Equatable, Sendable {
    /// Bits 1–2 of the flags. Bit 1 means something only when bit 2 says the sensor reports contact.
    public enum SensorContact: Hashable, Sendable {
        case notSupported
        case notDetected
        case detected
    }

    enum Flag {
        static let valueIsUInt16: UInt8 = 0x01
        static let contactDetected: UInt8 = 0x02
        static let contactSupported: UInt8 = 0x04
        static let energyExpendedPresent: UInt8 = 0x08
        static let rrIntervalsPresent: UInt8 = 0x10
        static let reserved: UInt8 = 0xE0
    }

    public var beatsPerMinute: UInt16
    public var sensorContact: SensorContact
    /// Kilojoules since the last Reset Energy Expended; nil when the field is absent.
    public var energyExpended: UInt16?
    /// Nil when the field is absent (flags bit 4 clear); may be empty when the bit is set.
    public var rrIntervals: RRIntervals?
    /// Send the heart rate as uint16 even when it fits in uint8. Decoding sets it from flags bit 0.
    public var usesUInt16Format: Bool
    /// Flag bits that carry no meaning here but are kept so a value re-encodes unchanged:
    /// the reserved bits 5–7, and bit 1 when bit 2 is clear (contact without support).
    public var unmodelledFlagBits: UInt8

    public init(
        beatsPerMinute: UInt16, sensorContact: SensorContact = .notSupported, energyExpended: UInt16? = nil,
        rrIntervals: RRIntervals? = nil, usesUInt16Format: Bool = false, unmodelledFlagBits: UInt8 = 0
    ) {
        self.beatsPerMinute = beatsPerMinute
        self.sensorContact = sensorContact
        self.energyExpended = energyExpended
        self.rrIntervals = rrIntervals
        self.usesUInt16Format = usesUInt16Format
        self.unmodelledFlagBits = unmodelledFlagBits
    }

    /// The flags byte ``encode(into:)`` writes.
    public var flags: UInt8 {
        var flags = unmodelledFlagBits & (Flag.reserved | Flag.contactDetected)
        if usesUInt16Format || beatsPerMinute > UInt8.max { flags |= Flag.valueIsUInt16 }
        switch sensorContact {
        case .notSupported: break
        case .notDetected: flags = flags & ~Flag.contactDetected | Flag.contactSupported
        case .detected: flags |= Flag.contactSupported | Flag.contactDetected
        }
        if energyExpended != nil { flags |= Flag.energyExpendedPresent }
        if rrIntervals != nil { flags |= Flag.rrIntervalsPresent }
        return flags
    }

    /// Encoded size in bytes.
    public var encodedCount: Int {
        1 + (flags & Flag.valueIsUInt16 != 0 ? 2 : 1) + (energyExpended == nil ? 0 : 2) + 2 * (rrIntervals?.count ?? 0)
    }

    /// Reads the whole remaining value: RR-intervals run to its end.
    public init(parsing input: inout ByteCursor) throws(ParseError) {
        let flags = try input.readUInt8("flags")
        usesUInt16Format = flags & Flag.valueIsUInt16 != 0
        beatsPerMinute = usesUInt16Format
            ? try input.readUInt16LE("heart rate value")
            : UInt16(try input.readUInt8("heart rate value"))
        switch (flags & Flag.contactSupported != 0, flags & Flag.contactDetected != 0) {
        case (false, _): sensorContact = .notSupported
        case (true, false): sensorContact = .notDetected
        case (true, true): sensorContact = .detected
        }
        unmodelledFlagBits = flags & Flag.reserved
        if sensorContact == .notSupported { unmodelledFlagBits |= flags & Flag.contactDetected }
        energyExpended = flags & Flag.energyExpendedPresent != 0 ? try input.readUInt16LE("energy expended") : nil
        guard flags & Flag.rrIntervalsPresent != 0 else {
            rrIntervals = nil
            return
        }
        rrIntervals = try RRIntervals(parsingToEnd: &input)
    }

    /// Equal when they encode to the same bytes: the format flag and the unmodelled bits are
    /// compared as ``flags`` writes them (uint16 forced above 255; bit 1 dropped once bit 2 is set).
    public static func == (lhs: HeartRateMeasurement, rhs: HeartRateMeasurement) -> Bool {
        lhs.beatsPerMinute == rhs.beatsPerMinute && lhs.sensorContact == rhs.sensorContact
            && lhs.energyExpended == rhs.energyExpended && lhs.rrIntervals == rhs.rrIntervals
            && lhs.flags == rhs.flags
    }

    public func encode(into output: inout ByteWriter) {
        let flags = self.flags
        output.writeUInt8(flags)
        if flags & Flag.valueIsUInt16 != 0 {
            output.writeUInt16LE(beatsPerMinute)
        } else {
            output.writeUInt8(UInt8(beatsPerMinute))
        }
        if let energyExpended { output.writeUInt16LE(energyExpended) }
        if let rrIntervals {
            for interval in rrIntervals { output.writeUInt16LE(interval.rawValue) }
        }
    }
}
