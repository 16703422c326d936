/// One cumulative sample as the merge sees it: times in microseconds, value in the canonical unit.
public struct MergeSample: Hashable, Sendable {
    public var start: Int64
    public var end: Int64
    public var value: Double
    /// Position of the sample's source in the priority order; lower wins.
    public var rank: Int32
    /// When the sample was last written (the store's change anchor); among equal ranks, newer wins.
    public var recency: Int64

    public init(start: Int64, end: Int64, value: Double, rank: Int32, recency: Int64) {
        self.start = start
        self.end = end
        self.value = value
        self.rank = rank
        self.recency = recency
    }
}

/// Sums cumulative samples from several sources without counting overlaps twice.
///
/// A sweep line over every sample start, sample end and bucket border (the algorithm of Health
/// Connect's `PriorityRecordsAggregator`, which matches every public observation of HealthKit):
/// between two consecutive event times the one open sample with the best priority (lowest rank,
/// then most recently written) is the only one that counts, and it contributes
/// `value × segment / duration`. So a sample straddling a bucket border is split in proportion to
/// time (100 steps over 13:57–14:02 give 60 to 13:00 and 40 to 14:00), a lower-priority source
/// only fills the gaps of the higher ones, and a zero-length sample contributes its whole value
/// to the bucket containing its instant.
public enum PriorityMerge {
    /// Merged sums per bucket; `nil` where no sample covers any part of the bucket.
    /// - Parameters:
    ///   - samples: sorted by `start` ascending.
    ///   - borders: ascending bucket borders; bucket `i` is `[borders[i], borders[i+1])`.
    public static func sums(_ samples: [MergeSample], borders: [Int64]) -> [Double?] {
        let bucketCount = borders.count - 1
        guard bucketCount > 0 else { return [] }
        var sums = [Double](repeating: 0, count: bucketCount)
        var covered = [Bool](repeating: false, count: bucketCount)
        samples.withUnsafeBufferPointer { samples in
            borders.withUnsafeBufferPointer { borders in
                sweep(samples, borders, &sums, &covered)
            }
        }
        return (0..<bucketCount).map { covered[$0] ? sums[$0] : nil }
    }

    private static func sweep(_ samples: UnsafeBufferPointer<MergeSample>, _ borders: UnsafeBufferPointer<Int64>,
                              _ sums: inout [Double], _ covered: inout [Bool]) {
        let bucketCount = borders.count - 1
        var active: [Int] = []
        active.reserveCapacity(16)
        var next = 0
        var bucket = 0
        var time = borders[0]
        while bucket < bucketCount {
            // Open every sample starting at or before `time`.
            while next < samples.count, samples[next].start <= time {
                let sample = samples[next]
                if sample.start == sample.end {
                    if sample.start == time {
                        sums[bucket] += sample.value
                        covered[bucket] = true
                    }
                } else if sample.end > time {
                    active.append(next)
                }
                next += 1
            }
            // Close every sample that has ended, find the next event and the winner.
            var nextTime = borders[bucket + 1]
            if next < samples.count, samples[next].start < nextTime { nextTime = samples[next].start }
            var winner = -1
            var index = 0
            while index < active.count {
                let candidate = samples[active[index]]
                if candidate.end <= time {
                    active.swapAt(index, active.count - 1)
                    active.removeLast()
                    continue
                }
                if candidate.end < nextTime { nextTime = candidate.end }
                if winner < 0 {
                    winner = active[index]
                } else {
                    let best = samples[winner]
                    if candidate.rank < best.rank || (candidate.rank == best.rank && candidate.recency > best.recency) {
                        winner = active[index]
                    }
                }
                index += 1
            }
            if winner >= 0 {
                let sample = samples[winner]
                sums[bucket] += sample.value * Double(nextTime - time) / Double(sample.end - sample.start)
                covered[bucket] = true
            }
            time = nextTime
            if time >= borders[bucket + 1] { bucket += 1 }
        }
    }

    /// Per-source sums: each source merged only with itself (its own overlaps are not counted
    /// twice either). `sources[i]` is the source index of `samples[i]`; the result is indexed
    /// `[source][bucket]`.
    public static func sumsBySource(_ samples: [MergeSample], sources: [Int], sourceCount: Int,
                                    borders: [Int64]) -> [[Double?]] {
        var perSource = [[MergeSample]](repeating: [], count: sourceCount)
        for (sample, source) in zip(samples, sources) { perSource[source].append(sample) }
        return perSource.map { sums($0, borders: borders) }
    }
}

/// Average, minimum, maximum and most recent of discrete samples, over all sources without merging.
/// A sample belongs to the bucket containing its start (as Health Connect groups plain aggregates).
public enum DiscreteAggregation {
    public struct Input: Hashable, Sendable {
        public var start: Int64
        public var end: Int64
        public var value: Double
        public var recency: Int64
        public init(start: Int64, end: Int64, value: Double, recency: Int64) {
            self.start = start
            self.end = end
            self.value = value
            self.recency = recency
        }
    }

    public static func aggregate(_ samples: [Input], borders: [Int64]) -> [StatisticsValues] {
        let bucketCount = max(0, borders.count - 1)
        var total = [Double](repeating: 0, count: bucketCount)
        var values = [StatisticsValues](repeating: StatisticsValues(), count: bucketCount)
        var latest = [(end: Int64, recency: Int64)](repeating: (Int64.min, Int64.min), count: bucketCount)
        for sample in samples {
            guard let bucket = bucketIndex(of: sample.start, borders: borders) else { continue }
            total[bucket] += sample.value
            values[bucket].sampleCount += 1
            values[bucket].minimum = min(values[bucket].minimum ?? sample.value, sample.value)
            values[bucket].maximum = max(values[bucket].maximum ?? sample.value, sample.value)
            if (sample.end, sample.recency) > latest[bucket] {
                latest[bucket] = (sample.end, sample.recency)
                values[bucket].mostRecent = sample.value
                values[bucket].mostRecentDate = .init(microsecondsSince1970: sample.end)
            }
        }
        for bucket in 0..<bucketCount where values[bucket].sampleCount > 0 {
            values[bucket].average = total[bucket] / Double(values[bucket].sampleCount)
        }
        return values
    }

    /// The bucket `[borders[i], borders[i+1])` holding `time`, or nil outside the range.
    public static func bucketIndex(of time: Int64, borders: [Int64]) -> Int? {
        guard let first = borders.first, let last = borders.last, time >= first, time < last else { return nil }
        var low = 0, high = borders.count - 1
        while high - low > 1 {
            let middle = (low + high) / 2
            if borders[middle] <= time { low = middle } else { high = middle }
        }
        return low
    }
}
