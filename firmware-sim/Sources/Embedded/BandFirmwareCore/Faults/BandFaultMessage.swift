/// Link message 0x13 (host → firmware): the faults the chip's band is to suffer — `--fault
/// drop=P`, `corrupt=P` (each notification), `disconnect-random=P` (after each PDU),
/// `clock-drift=PPM` (its clock) and `battery=PERCENT` (its level at boot) — the Linux band's
/// ``FaultPlan`` values, acted on in ``BandServices`` and ``BandCore`` (the one implementation
/// both bands run) with the same random stream, so the chip drops, corrupts, disconnects, drifts
/// and drains exactly as a Linux band with the same seed would. A link the band drops this way is
/// reported to the host with link message 0x89. Sent before link 0x10 (which builds the band),
/// after every boot, so a reset band suffers them again as a rebooted Linux band does; without it
/// there are none.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 8 | drop probability, IEEE 754 binary64 LE, 0…1 |
/// | 8 | 8 | corrupt probability, binary64 LE, 0…1 |
/// | 16 | 8 | disconnect probability after each sent PDU, binary64 LE, 0…1 |
/// | 24 | 8 | clock drift, parts per million, binary64 LE, −100,000…100,000 (FaultSpec's range) |
/// | 32 | 1 | battery level at boot, percent 0…100; 0xFF: the level kept in flash |
public enum BandFaultMessage {
    public static let byteCount = 33
    static let batteryFromFlash: UInt8 = 0xFF

    public struct Faults: Equatable {
        public var drop: Double
        public var corrupt: Double
        public var disconnect: Double
        public var clockDriftPPM: Double
        /// nil: the band starts with the level its flash holds.
        public var battery: UInt8?

        public init(drop: Double = 0, corrupt: Double = 0, disconnect: Double = 0, clockDriftPPM: Double = 0,
                    battery: UInt8? = nil) {
            self.drop = drop
            self.corrupt = corrupt
            self.disconnect = disconnect
            self.clockDriftPPM = clockDriftPPM
            self.battery = battery
        }

        public var isNone: Bool { drop == 0 && corrupt == 0 && disconnect == 0 && clockDriftPPM == 0 && battery == nil }
    }

    /// The message body (without the 0x13 code).
    public static func encode(_ faults: Faults) -> [UInt8] {
        [faults.drop, faults.corrupt, faults.disconnect, faults.clockDriftPPM].flatMap { value in
            (0..<8).map { UInt8(truncatingIfNeeded: value.bitPattern >> UInt64(8 * $0)) }
        } + [faults.battery ?? batteryFromFlash]
    }

    /// The faults; nil when the body is not 33 bytes or a value is out of its range (NaN included).
    public static func decode(_ body: UnsafeRawBufferPointer) -> Faults? {
        guard body.count == byteCount else { return nil }
        func double(_ offset: Int) -> Double {
            var bits: UInt64 = 0
            for byte in 0..<8 { bits |= UInt64(body[offset + byte]) << UInt64(8 * byte) }
            return Double(bitPattern: bits)
        }
        func probability(_ offset: Int) -> Double? {
            let value = double(offset)
            return value >= 0 && value <= 1 ? value : nil
        }
        let drift = double(24)
        let battery = body[32]
        guard let drop = probability(0), let corrupt = probability(8), let disconnect = probability(16),
              drift >= -100_000 && drift <= 100_000, battery <= 100 || battery == batteryFromFlash else { return nil }
        return Faults(drop: drop, corrupt: corrupt, disconnect: disconnect, clockDriftPPM: drift,
                      battery: battery == batteryFromFlash ? nil : battery)
    }
}
