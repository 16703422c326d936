@testable import BandReader
import Testing

/// The heart-rate accumulator a live minute keeps, and the same figures as a stored live part.
@Suite struct HeartRateAccumulatorTests {
    private func accumulator(_ readings: [Int], withoutContact: Int = 0) -> HeartRateAccumulator {
        var result = HeartRateAccumulator()
        for bpm in readings { result.add(bpm) }
        for _ in 0..<withoutContact { result.addWithoutContact() }
        return result
    }

    @Test func averageRoundsHalfUp() {
        #expect(accumulator([]).average == nil)
        #expect(accumulator([60, 61]).average == 61)        // 60.5 → 61
        #expect(accumulator([60, 60, 61]).average == 60)    // 60.33 → 60
        #expect(accumulator([60, 61, 61]).average == 61)    // 60.67 → 61
    }

    @Test func storedFieldsAreCountSumMinimumMaximumWithoutContact() {
        let readings = accumulator([70, 90, 80], withoutContact: 2)
        #expect(readings.storedFields == [3, 240, 70, 90, 2])
        #expect(HeartRateAccumulator(storedFields: readings.storedFields) == readings)
        // Fields a damaged part lacks are 0.
        #expect(HeartRateAccumulator(storedFields: [2, 150]).storedFields == [2, 150, 0, 0, 0])
    }

    /// Merging two parts gives what one accumulator fed both parts' readings gives.
    @Test func mergingEqualsAccumulatingBoth() {
        let a = accumulator([70, 95], withoutContact: 1)
        let b = accumulator([60, 80, 81], withoutContact: 3)
        #expect(a.merged(with: b) == accumulator([70, 95, 60, 80, 81], withoutContact: 4))
        #expect(b.merged(with: a) == a.merged(with: b))
        #expect(LiveMinuteParts.heartRate(a.storedFields, b.storedFields) == a.merged(with: b).storedFields)
    }

    /// A part without readings adds only its readings without contact: its minimum and maximum,
    /// whatever they are, never reach the result.
    @Test func aPartWithoutReadingsAddsOnlyItsContactlessCount() {
        let readings = accumulator([72, 74])
        let contactless = HeartRateAccumulator(storedFields: [0, 0, 0, 250, 5])
        #expect(readings.merged(with: contactless).storedFields == [2, 146, 72, 74, 5])
        #expect(contactless.merged(with: readings).storedFields == [2, 146, 72, 74, 5])
        #expect(LiveMinuteParts.heartRate([1, 2, 3], readings.storedFields) == readings.storedFields)  // damaged: the other wins
    }
}
