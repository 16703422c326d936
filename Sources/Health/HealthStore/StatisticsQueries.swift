import FoundationEssentials
import HealthModel

/// Statistics (HealthKit `HKStatisticsQuery` / `HKStatisticsCollectionQuery`).
extension HealthStore {
    /// Statistics of `type` over `range`, in buckets of `bucket` (one bucket for the whole range
    /// when nil) anchored at `anchor` (default: the start of the period containing the range
    /// start, in `timeZone`).
    ///
    /// - Every bucket inside the range is returned, empty ones with nil values; buckets at the
    ///   range edges are clipped to it.
    /// - Cumulative types: the sum merged over sources by priority (see `PriorityMerge`).
    /// - Discrete types: average, minimum, maximum, most recent over all visible sources.
    /// - `bySource`: each bucket also lists every source's own values, in priority order.
    /// Values are in the type's canonical unit (`Statistics/unit`).
    public func statistics(type: QuantityType, range: Range<Date>, options: StatisticsOptions,
                           bucket: BucketInterval? = nil, anchor: Date? = nil, timeZone: TimeZone = .current,
                           bySource: Bool = false, as app: AppIdentity) throws -> [Statistics] {
        do { try options.validate(for: type) } catch { throw HealthStoreError.statistics(error) }
        guard range.lowerBound < range.upperBound else { throw HealthStoreError.statistics(.emptyRange) }
        if let tooMany = BucketCalendar.tooManyBuckets(range: range, interval: bucket) { throw HealthStoreError.statistics(tooMany) }
        let borders = BucketCalendar.borders(range: range, interval: bucket, anchor: anchor, timeZone: timeZone)
        let from = borders.first!, to = borders.last!
        let typeID = typeID(.quantity(type))

        return try read { connection in
            let visible = try visibilityFilter(for: app, type: .quantity(type), connection)
            if type.aggregation == .cumulative, visible == nil, !bySource {
                // The common case: everything visible, merged. Whole hours come from `merged_hour`.
                let sums = try mergedSumsUsingHours(typeID: typeID, borders: borders, connection)
                return sums.indices.map { index in
                    Statistics(start: Date(microsecondsSince1970: borders[index]),
                               end: Date(microsecondsSince1970: borders[index + 1]), unit: type.canonicalUnit,
                               values: Self.keep(options, of: StatisticsValues(sum: sums[index])))
                }
            }
            let order = try priorityOrder(typeID: typeID, connection)
            var rankOf: [Int64: Int32] = [:]
            for (rank, entry) in order.enumerated() { rankOf[entry.id] = Int32(rank) }
            let maxDuration = try connection.scalar("SELECT max_duration_us FROM sample_type WHERE id = ?") {
                $0.bind(1, typeID)
            }.get() ?? 0
            // Cumulative: every sample touching the range (the merge clips). Discrete: samples
            // starting inside the range (each belongs to the bucket holding its start).
            let cumulative = type.aggregation == .cumulative
            let statement = try connection.cached("""
                SELECT start_us, end_us, value, app_id, anchor FROM sample INDEXED BY sample_by_type_time
                WHERE person_id = ?6 AND type_id = ?1 AND start_us >= ?2 AND start_us < ?3 AND end_us >= ?4
                AND (CAST(?5 AS BIGINT) IS NULL OR app_id = ?5)
                ORDER BY start_us
                """).get()
            defer { statement.reset() }
            statement.bind(6, personID)
            statement.bind(1, typeID)
            statement.bind(2, cumulative ? from - maxDuration : from)
            statement.bind(3, to)
            statement.bind(4, from)
            statement.bind(5, visible)

            var merge: [MergeSample] = []
            var discrete: [DiscreteAggregation.Input] = []
            var sourceOf: [Int] = []
            var sourceIndex: [Int64: Int] = [:]
            var sourceIDs: [Int64] = []
            while try statement.step().get() {
                let start = statement.int64(0), end = statement.int64(1), value = statement.double(2)
                let appID = statement.int64(3), recency = statement.int64(4)
                if cumulative {
                    merge.append(MergeSample(start: start, end: end, value: value,
                                             rank: rankOf[appID] ?? Int32.max, recency: recency))
                } else {
                    discrete.append(.init(start: start, end: end, value: value, recency: recency))
                }
                if bySource {
                    if let index = sourceIndex[appID] {
                        sourceOf.append(index)
                    } else {
                        sourceIndex[appID] = sourceIDs.count
                        sourceOf.append(sourceIDs.count)
                        sourceIDs.append(appID)
                    }
                }
            }

            let bucketCount = borders.count - 1
            var merged: [StatisticsValues]
            if cumulative {
                merged = PriorityMerge.sums(merge, borders: borders).map { StatisticsValues(sum: $0) }
            } else {
                merged = DiscreteAggregation.aggregate(discrete, borders: borders)
            }
            for index in merged.indices { merged[index] = Self.keep(options, of: merged[index]) }

            var perSource = [[SourceStatistics]](repeating: [], count: bucketCount)
            if bySource {
                let rankedSources = sourceIDs.indices.sorted { (rankOf[sourceIDs[$0]] ?? .max) < (rankOf[sourceIDs[$1]] ?? .max) }
                let names = Dictionary(uniqueKeysWithValues: order.map { ($0.id, $0.bundleID) })
                var valuesBySource = [[StatisticsValues]](repeating: [], count: sourceIDs.count)
                if cumulative {
                    let sums = PriorityMerge.sumsBySource(merge, sources: sourceOf, sourceCount: sourceIDs.count, borders: borders)
                    for source in sourceIDs.indices { valuesBySource[source] = sums[source].map { StatisticsValues(sum: $0) } }
                } else {
                    var inputs = [[DiscreteAggregation.Input]](repeating: [], count: sourceIDs.count)
                    for (sample, source) in zip(discrete, sourceOf) { inputs[source].append(sample) }
                    for source in sourceIDs.indices {
                        valuesBySource[source] = DiscreteAggregation.aggregate(inputs[source], borders: borders)
                    }
                }
                for bucket in 0..<bucketCount {
                    for source in rankedSources {
                        let values = Self.keep(options, of: valuesBySource[source][bucket])
                        guard values.sum != nil || values.sampleCount > 0 else { continue }
                        perSource[bucket].append(SourceStatistics(source: names[sourceIDs[source]] ?? "?", values: values))
                    }
                }
            }

            return (0..<bucketCount).map { index in
                Statistics(start: Date(microsecondsSince1970: borders[index]),
                           end: Date(microsecondsSince1970: borders[index + 1]),
                           unit: type.canonicalUnit, values: merged[index], bySource: perSource[index])
            }
        }
    }

    /// Drops the values that were not asked for.
    static func keep(_ options: StatisticsOptions, of values: StatisticsValues) -> StatisticsValues {
        var kept = values
        if !options.contains(.sum) { kept.sum = nil }
        if !options.contains(.average) { kept.average = nil }
        if !options.contains(.minimum) { kept.minimum = nil }
        if !options.contains(.maximum) { kept.maximum = nil }
        if !options.contains(.mostRecent) { kept.mostRecent = nil; kept.mostRecentDate = nil }
        return kept
    }
}
