import BandReader
import Testing

/// The plausibility rules for live heart rate and RR intervals (range, Malik's 20 % rule, and
/// recovery when two consecutive intervals agree), as sequences in and verdicts out.
@Suite struct PhysiologicalPlausibilityTests {
    /// Milliseconds to 1/1024 s.
    static func units(_ milliseconds: Double) -> UInt16 { UInt16((milliseconds * 1.024).rounded()) }

    func verdicts(_ milliseconds: [Double]) -> [PhysiologicalPlausibility.Rejection?] {
        var filter = PhysiologicalPlausibility()
        return milliseconds.map { filter.judge(Self.units($0)) }
    }

    @Test(arguments: [
        // Steady rhythm: the first waits for confirmation, the rest pass.
        ([1000, 1010, 990, 1005], [.unconfirmed, nil, nil, nil]),
        // A bit flip far outside the range, then the rhythm continues against the old reference.
        ([1000, 1000, 32_893.6, 1000], [.unconfirmed, nil, .outOfRange, nil]),
        // Below 240 ms and above 2400 ms never pass, even when repeated.
        ([200, 200, 2500, 2500], [.outOfRange, .outOfRange, .outOfRange, .outOfRange]),
        // An ectopic beat and its compensatory pause: both excluded, the rhythm resumes.
        ([800, 800, 560, 1040, 800], [.unconfirmed, nil, .suddenChange, .suddenChange, nil]),
        // A real change of rhythm: two agreeing intervals move the reference.
        ([1000, 1000, 600, 610, 600], [.unconfirmed, nil, .suddenChange, nil, nil]),
        // A damaged first interval never seeds the reference.
        ([2100, 1000, 1000], [.unconfirmed, .unconfirmed, nil]),
        // Within 20 % passes, 25 % does not.
        ([1000, 1000, 1190, 1500], [.unconfirmed, nil, nil, .suddenChange]),
    ] as [([Double], [PhysiologicalPlausibility.Rejection?])])
    func rrIntervals(_ input: [Double], _ expected: [PhysiologicalPlausibility.Rejection?]) {
        #expect(verdicts(input) == expected)
    }

    @Test func heartRateRangeIs25To250() {
        #expect(!PhysiologicalPlausibility.isPlausible(heartRate: 24))
        #expect(PhysiologicalPlausibility.isPlausible(heartRate: 25))
        #expect(PhysiologicalPlausibility.isPlausible(heartRate: 250))
        #expect(!PhysiologicalPlausibility.isPlausible(heartRate: 251))
    }

    @Test func rangeBoundsAre240And2400Milliseconds() {
        #expect(PhysiologicalPlausibility.rrIntervalRange.lowerBound == Self.units(240))
        #expect(PhysiologicalPlausibility.rrIntervalRange.upperBound == Self.units(2400) - 1 || PhysiologicalPlausibility.rrIntervalRange.upperBound == Self.units(2400))
        #expect(Double(PhysiologicalPlausibility.rrIntervalRange.upperBound) * 1000 / 1024 <= 2400)
        #expect(Double(PhysiologicalPlausibility.rrIntervalRange.lowerBound) * 1000 / 1024 >= 240)
    }
}
