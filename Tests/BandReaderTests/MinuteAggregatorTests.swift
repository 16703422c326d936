import BandReader
import Testing

@Suite struct MinuteAggregatorTests {
    static let minute: UInt32 = 1_796_032_800

    func heartRate(_ aggregator: inout MinuteAggregator, _ bpm: Int, at t: UInt32, rr: [UInt16] = []) -> LiveMinute? {
        aggregator.add(heartRate: bpm, rrIntervals: rr, at: t, utcOffsetSeconds: 3600)
    }

    @Test func heartRateReadingsFoldIntoAverageMinimumAndMaximum() {
        var aggregator = MinuteAggregator()
        for (i, bpm) in [70, 74, 90, 61].enumerated() {
            #expect(heartRate(&aggregator, bpm, at: Self.minute + UInt32(i * 10)) == nil)
        }
        let closed = heartRate(&aggregator, 80, at: Self.minute + 60)
        #expect(closed?.start == Self.minute)
        #expect(closed?.heartRate.count == 4)
        #expect(closed?.heartRate.average == 74)   // 295 / 4 = 73.75, rounded half up
        #expect(closed?.heartRate.minimum == 61)
        #expect(closed?.heartRate.maximum == 90)
        #expect(closed?.utcOffsetSeconds == 3600)
    }

    @Test func activityDeltasAddUpWithinTheMinute() {
        var aggregator = MinuteAggregator()
        _ = aggregator.add(CounterDelta(steps: 10, distanceDecimetres: 70, energyDecikilocalories: 3), at: Self.minute + 5, utcOffsetSeconds: 0)
        _ = aggregator.add(CounterDelta(steps: 12, distanceDecimetres: 80, energyDecikilocalories: 4), at: Self.minute + 59, utcOffsetSeconds: 0)
        let closed = aggregator.add(.zero, at: Self.minute + 61, utcOffsetSeconds: 0)
        #expect(closed?.activity == CounterDelta(steps: 22, distanceDecimetres: 150, energyDecikilocalories: 7))
    }

    @Test func rrIntervalsAreKeptInOrder() {
        var aggregator = MinuteAggregator()
        _ = heartRate(&aggregator, 60, at: Self.minute, rr: [1024, 1000])
        _ = heartRate(&aggregator, 61, at: Self.minute + 1, rr: [1010])
        #expect(aggregator.flush()?.rrIntervals == [1024, 1000, 1010])
    }

    @Test func lateReadingIsFiledUnderTheOpenMinuteNotAClosedOne() {
        var aggregator = MinuteAggregator()
        _ = heartRate(&aggregator, 60, at: Self.minute)
        let closed = heartRate(&aggregator, 62, at: Self.minute + 60)
        #expect(closed?.heartRate.count == 1)
        #expect(heartRate(&aggregator, 90, at: Self.minute + 30) == nil)
        #expect(aggregator.flush()?.heartRate.count == 2)
    }

    @Test func emptyMinutesAreNotHandedBack() {
        var aggregator = MinuteAggregator()
        _ = aggregator.add(.zero, at: Self.minute, utcOffsetSeconds: 0)
        #expect(aggregator.add(.zero, at: Self.minute + 120, utcOffsetSeconds: 0) == nil)
        #expect(aggregator.flush() == nil)
    }

    @Test func rrIntervalsPerMinuteAreBounded() {
        var aggregator = MinuteAggregator()
        for i in 0..<400 { _ = heartRate(&aggregator, 200, at: Self.minute + UInt32(i % 60), rr: [300]) }
        #expect(aggregator.flush()?.rrIntervals.count == MinuteAggregator.maximumRRIntervalsPerMinute)
    }
}
