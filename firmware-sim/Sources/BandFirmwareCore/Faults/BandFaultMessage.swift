/// Link message 0x13 (host → firmware): the faults the chip's band is to suffer on what it sends —
/// `--fault drop=P`, `corrupt=P` (each notification) and `disconnect-random=P` (after each PDU) —
/// the Linux band's ``FaultPlan`` rates, acted on in ``BandServices`` (the one implementation both
/// bands run) with the same random stream, so the chip drops, corrupts and disconnects exactly
/// where a Linux band with the same seed would. A link the band drops this way is reported to the
/// host with link message 0x89. Sent before link 0x10 (which builds the services), after every
/// boot; without it the rates are 0.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 8 | drop probability, IEEE 754 binary64 LE, 0…1 |
/// | 8 | 8 | corrupt probability, binary64 LE, 0…1 |
/// | 16 | 8 | disconnect probability after each sent PDU, binary64 LE, 0…1 |
public enum BandFaultMessage {
    public static let byteCount = 24

    public struct Rates: Equatable {
        public var drop: Double
        public var corrupt: Double
        public var disconnect: Double
        public init(drop: Double = 0, corrupt: Double = 0, disconnect: Double = 0) {
            self.drop = drop
            self.corrupt = corrupt
            self.disconnect = disconnect
        }
        public var isNone: Bool { drop == 0 && corrupt == 0 && disconnect == 0 }
    }

    /// The message body (without the 0x13 code).
    public static func encode(_ rates: Rates) -> [UInt8] {
        [rates.drop, rates.corrupt, rates.disconnect].flatMap { rate in
            (0..<8).map { UInt8(truncatingIfNeeded: rate.bitPattern >> UInt64(8 * $0)) }
        }
    }

    /// The rates, nil when the body is not 24 bytes or a rate is not a probability (NaN included).
    public static func decode(_ body: UnsafeRawBufferPointer) -> Rates? {
        guard body.count == byteCount else { return nil }
        func probability(_ offset: Int) -> Double? {
            var bits: UInt64 = 0
            for byte in 0..<8 { bits |= UInt64(body[offset + byte]) << UInt64(8 * byte) }
            let value = Double(bitPattern: bits)
            return value >= 0 && value <= 1 ? value : nil
        }
        guard let drop = probability(0), let corrupt = probability(8), let disconnect = probability(16) else { return nil }
        return Rates(drop: drop, corrupt: corrupt, disconnect: disconnect)
    }
}
