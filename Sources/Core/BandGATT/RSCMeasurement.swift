import BandWire

/// RSC Measurement (0x2A53), notified by the Running Speed and Cadence service (0x1814).
///
/// RSC Service 1.0 §3.1; GATT XML `rsc_measurement.xml`; Wireshark `packet-btatt.c`
/// (`case 0x2A53`, masks 0x01/0x02/0x04/0xF8).
///
/// | offset | size | field | unit | present when |
/// |---|---|---|---|---|
/// | 0 | 1 | flags | | always |
/// | 1 | 2 | instantaneous speed, uint16 | 1/256 m/s | always |
/// | 3 | 1 | instantaneous cadence, uint8 | 1/min | always |
/// | 4 | 2 | instantaneous stride length, uint16 | 1/100 m | flags bit 0 |
/// | next | 4 | total distance, uint32 | 1/10 m | flags bit 1 |
///
/// Flags: bit 0 stride length present, bit 1 total distance present, bit 2 running (else
/// walking), bits 3–7 reserved (kept). Note Nordic's Android library reads total distance as
/// metres; the SIG unit is decimetres.
public struct RSCMeasurement: WireCodable, Equatable, Sendable {
    enum Flag {
        static let strideLengthPresent: UInt8 = 0x01
        static let totalDistancePresent: UInt8 = 0x02
        static let running: UInt8 = 0x04
        static let reserved: UInt8 = 0xF8
    }

    /// 1/256 m/s.
    public var instantaneousSpeed: UInt16
    /// Steps (strides of either foot) per minute.
    public var instantaneousCadence: UInt8
    /// 1/100 m; nil when absent.
    public var instantaneousStrideLength: UInt16?
    /// 1/10 m; nil when absent.
    public var totalDistance: UInt32?
    /// Flags bit 2: running rather than walking.
    public var isRunning: Bool
    /// Bits 3–7 as received.
    public var reservedFlagBits: UInt8

    public init(
        instantaneousSpeed: UInt16, instantaneousCadence: UInt8, instantaneousStrideLength: UInt16? = nil,
        totalDistance: UInt32? = nil, isRunning: Bool, reservedFlagBits: UInt8 = 0
    ) {
        self.instantaneousSpeed = instantaneousSpeed
        self.instantaneousCadence = instantaneousCadence
        self.instantaneousStrideLength = instantaneousStrideLength
        self.totalDistance = totalDistance
        self.isRunning = isRunning
        self.reservedFlagBits = reservedFlagBits & Flag.reserved
    }

    /// Exact (a dyadic fraction): raw / 256.
    public var speedMetersPerSecond: Double { Double(instantaneousSpeed) / 256 }
    /// Raw / 100.
    public var strideLengthMeters: Double? { instantaneousStrideLength.map { Double($0) / 100 } }
    /// Raw / 10.
    public var totalDistanceMeters: Double? { totalDistance.map { Double($0) / 10 } }
    public var cadenceStepsPerMinute: Int { Int(instantaneousCadence) }

    public var flags: UInt8 {
        var flags = reservedFlagBits & Flag.reserved
        if instantaneousStrideLength != nil { flags |= Flag.strideLengthPresent }
        if totalDistance != nil { flags |= Flag.totalDistancePresent }
        if isRunning { flags |= Flag.running }
        return flags
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        let flags = try input.readUInt8("flags")
        instantaneousSpeed = try input.readUInt16LE("instantaneous speed")
        instantaneousCadence = try input.readUInt8("instantaneous cadence")
        instantaneousStrideLength = flags & Flag.strideLengthPresent != 0
            ? try input.readUInt16LE("instantaneous stride length") : nil
        totalDistance = flags & Flag.totalDistancePresent != 0 ? try input.readUInt32LE("total distance") : nil
        isRunning = flags & Flag.running != 0
        reservedFlagBits = flags & Flag.reserved
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(flags)
        output.writeUInt16LE(instantaneousSpeed)
        output.writeUInt8(instantaneousCadence)
        if let instantaneousStrideLength { output.writeUInt16LE(instantaneousStrideLength) }
        if let totalDistance { output.writeUInt32LE(totalDistance) }
    }
}
