/// Keeps physiologically impossible heart rates and RR intervals out of the store.
///
/// Heart-rate variability is computed only from live notifications, and the band's history
/// never repairs it, so one damaged interval (a bit flip that survived the link, a strap that
/// missed a beat) would otherwise become a permanent HRV sample (a review saw 32,893.6 ms and an
/// SDNN of 5,575 ms). Three rules, applied in arrival order:
///
/// | rule | limit | why |
/// |---|---|---|
/// | heart rate range | 25–250 bpm | below the slowest and above the fastest rate a wrist or chest sensor reports for a living wearer |
/// | RR range | 240–2400 ms (246–2457 in 1/1024 s) | the same span as intervals: 250 bpm = 240 ms, 25 bpm = 2400 ms |
/// | successive difference | within 20 % of the previous accepted interval | Malik et al. 1989; Task Force of the ESC and NASPE 1996 |
///
/// The successive-difference rule is the classic NN-interval editing rule: an interval that
/// differs by more than 20 % from the preceding normal interval is treated as ectopic or as an
/// artefact and excluded (M. Malik, T. Farrell, T. Cripps, A. J. Camm, "Heart rate variability
/// in relation to prognosis after myocardial infarction: selection of optimal processing
/// techniques", *European Heart Journal* 10:1060–1074, 1989; Task Force of the European Society
/// of Cardiology and the North American Society of Pacing and Electrophysiology, "Heart rate
/// variability: standards of measurement, physiological interpretation and clinical use",
/// *Circulation* 93:1043–1065, 1996). A real change of rhythm (the wearer starts running, or the
/// reference itself was bad) is recovered from when **two consecutive intervals agree** within
/// 20 % of each other: the second is accepted and becomes the new reference. The very first
/// interval of a stream has no reference and is likewise accepted only once the next one
/// confirms it, so a damaged first interval never seeds the reference.
///
/// Pure value: no I/O, no clock; one per live stream.
public struct PhysiologicalPlausibility: Sendable, Equatable {
    /// Heart rates outside this range (bpm) are not stored.
    public static let heartRateRange: ClosedRange<Int> = 25...250
    /// RR intervals outside this range (1/1024 s: 240 ms to 2400 ms) are not stored.
    public static let rrIntervalRange: ClosedRange<UInt16> = 246...2457

    /// Why an RR interval was not accepted.
    public enum Rejection: Sendable, Equatable {
        case outOfRange
        /// More than 20 % from the previous accepted interval and not confirmed by the one before.
        case suddenChange
        /// The first interval of the stream, waiting for the next one to confirm it.
        case unconfirmed
    }

    /// The last accepted interval (1/1024 s), against which the next is judged.
    public private(set) var reference: UInt16?
    /// The last in-range interval that was not accepted: if the next agrees with it, the rhythm
    /// changed and the reference follows.
    private var candidate: UInt16?

    public init() {}

    /// Whether a measured heart rate is plausible.
    public static func isPlausible(heartRate bpm: Int) -> Bool { heartRateRange.contains(bpm) }

    /// Judges one RR interval (1/1024 s); nil when accepted.
    public mutating func judge(_ interval: UInt16) -> Rejection? {
        guard Self.rrIntervalRange.contains(interval) else {
            candidate = nil
            return .outOfRange
        }
        if let reference, Self.agree(interval, reference) {
            self.reference = interval
            candidate = nil
            return nil
        }
        if let candidate, Self.agree(interval, candidate) {
            reference = interval
            self.candidate = nil
            return nil
        }
        candidate = interval
        return reference == nil ? .unconfirmed : .suddenChange
    }

    /// Whether `interval` is within 20 % of `previous` (integer arithmetic: |Δ| · 5 ≤ previous).
    static func agree(_ interval: UInt16, _ previous: UInt16) -> Bool {
        let difference = interval > previous ? interval - previous : previous - interval
        return Int(difference) * 5 <= Int(previous)
    }
}
