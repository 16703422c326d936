import HealthModel

/// Hourly merged sums of cumulative types (`merged_hour`), per person.
///
/// Invariant, after every commit: for each cumulative type, every UTC hour that any sample
/// touches has a row holding the priority-merged sum over that hour, exactly what the sweep
/// (``PriorityMerge``) gives for it; hours without samples have no row. Because merged sums
/// add up over any partition of time, a statistics bucket made of whole UTC hours is the sum of
/// its hours' rows, and only the partial hours at bucket edges (half-hour zones, odd ranges) go
/// back to the samples.
///
/// Write transactions note the hours their samples cover and recompute just those at commit.
/// Changing what ranks sources (a priority list, a source's first sample with a device) changes
/// merged values wherever that source has data, so it recomputes the whole type. The rows hold
/// the view of a reader who sees every source; apps that may only see their own samples, and
/// per-source breakdowns, are computed from the samples.
extension HealthStore {
    static let hourMicroseconds: Int64 = 3_600_000_000

    static func hourFloor(_ time: Int64) -> Int64 {
        let remainder = time % hourMicroseconds
        return remainder < 0 ? time - remainder - hourMicroseconds : time - remainder
    }

    static func hourCeiling(_ time: Int64) -> Int64 {
        let floor = hourFloor(time)
        return floor == time ? time : floor + hourMicroseconds
    }

    /// Whether a type's merged sums are kept hourly.
    func keepsMergedHours(_ typeID: Int64) -> Bool {
        typesByID[typeID]?.quantityType?.aggregation == .cumulative
    }

    var mergedHourTypeIDs: [Int64] { typeIDs.values.filter(keepsMergedHours).sorted() }

    func maxDuration(typeID: Int64, _ connection: Connection) throws(HealthStoreError) -> Int64 {
        try connection.scalar("SELECT max_duration_us FROM sample_type WHERE id = ?") { $0.bind(1, typeID) }.get() ?? 0
    }

    /// Cumulative samples touching `[from, to)`, sorted by start, ranked by `ranks`; `visible`
    /// restricts them to one source.
    func mergeSamples(personID: Int64, typeID: Int64, from: Int64, to: Int64, visible: Int64?, ranks: [Int64: Int32],
                      _ connection: Connection, sourceOf: ((Int64) -> Void)? = nil) throws(HealthStoreError) -> [MergeSample] {
        let statement = try connection.cached("""
            SELECT start_us, end_us, value, app_id, anchor FROM sample INDEXED BY sample_by_type_time
            WHERE person_id = ?6 AND type_id = ?1
            AND start_us >= ?2 - (SELECT max_duration_us FROM sample_type WHERE id = ?1) AND start_us < ?3 AND end_us >= ?4
            AND (CAST(?5 AS BIGINT) IS NULL OR app_id = ?5)
            ORDER BY start_us
            """).get()
        defer { statement.reset() }
        statement.bind(1, typeID)
        statement.bind(6, personID)
        // The type's longest duration is read in the same statement (a round trip fewer per hour span).
        statement.bind(2, from)
        statement.bind(3, to)
        statement.bind(4, from)
        statement.bind(5, visible)
        var samples: [MergeSample] = []
        while try statement.step().get() {
            let appID = statement.int64(3)
            samples.append(MergeSample(start: statement.int64(0), end: statement.int64(1), value: statement.double(2),
                                       rank: ranks[appID] ?? Int32.max, recency: statement.int64(4)))
            sourceOf?(appID)
        }
        return samples
    }

    func ranks(typeID: Int64, _ connection: Connection) throws(HealthStoreError) -> [Int64: Int32] {
        var ranks: [Int64: Int32] = [:]
        for (rank, entry) in try priorityOrder(typeID: typeID, connection).enumerated() { ranks[entry.id] = Int32(rank) }
        return ranks
    }

    /// The longest span recomputed at once (a week): its samples are held in memory together, so a
    /// bulk import of years costs the memory of a week of samples per type, not of the whole import
    /// (docs/performance.md, "Apple Health import"). Each span also re-reads the type's longest
    /// sample duration before it — at most a week (PlausibleRange) — so reading is at most doubled.
    static let longestRecomputedSpan: Int64 = 168 * hourMicroseconds

    /// Recomputes one person's rows of the hours in `spans` (each `[start, end)`, hour-aligned, sorted).
    func recomputeMergedHours(personID: Int64, typeID: Int64, spans: [(Int64, Int64)],
                              _ connection: Connection) throws(HealthStoreError) {
        guard !spans.isEmpty else { return }
        let ranks = try ranks(typeID: typeID, connection)
        let clear = try connection.cached(
            "DELETE FROM merged_hour WHERE person_id = ? AND type_id = ? AND hour_us >= ? AND hour_us < ?").get()
        let insert = try connection.cached("""
            INSERT INTO merged_hour (person_id, type_id, hour_us, value) VALUES (?, ?, ?, ?)
            ON CONFLICT (person_id, type_id, hour_us) DO UPDATE SET value = excluded.value
            """).get()
        for (from, to) in spans {
            let samples = try mergeSamples(personID: personID, typeID: typeID, from: from, to: to, visible: nil,
                                           ranks: ranks, connection)
            var borders: [Int64] = []
            var border = from
            while border <= to { borders.append(border); border += Self.hourMicroseconds }
            let sums = samples.isEmpty ? [] : PriorityMerge.sums(samples, borders: borders)
            // Every hour keeps a total (a live minute's hour, the common case): each row is
            // replaced in place. Otherwise the span is cleared first, so an hour left without
            // samples loses its row.
            if sums.count != borders.count - 1 || sums.contains(nil) {
                clear.bind(1, personID)
                clear.bind(2, typeID)
                clear.bind(3, from)
                clear.bind(4, to)
                try clear.run().get()
            }
            for (index, sum) in sums.enumerated() {
                guard let sum else { continue }
                insert.bind(1, personID)
                insert.bind(2, typeID)
                insert.bind(3, borders[index])
                insert.bind(4, sum)
                try insert.run().get()
            }
        }
    }

    /// Recomputes every hour of a type for every person: what changes the ranking of sources
    /// (shared by the whole store) changes everyone's merged sums.
    func rebuildMergedHours(typeID: Int64, _ connection: Connection) throws(HealthStoreError) {
        let select = try connection.cached("SELECT id FROM person ORDER BY id").get()
        var people: [Int64] = []
        while try select.step().get() { people.append(select.int64(0)) }
        select.reset()
        for personID in people { try rebuildMergedHours(personID: personID, typeID: typeID, connection) }
    }

    /// Recomputes every hour of a type for one person, from their first sample to their last.
    func rebuildMergedHours(personID: Int64, typeID: Int64, _ connection: Connection) throws(HealthStoreError) {
        // The last end is among the samples starting within the longest duration of the last
        // start: the (person, type, start) index gives both ends of the range without reading
        // every sample of the type (max(end_us) over all of them did).
        let bounds = try connection.cached("""
            SELECT (SELECT min(start_us) FROM sample WHERE person_id = ?1 AND type_id = ?2),
                   (SELECT max(end_us) FROM sample INDEXED BY sample_by_type_time WHERE person_id = ?1 AND type_id = ?2
                    AND start_us >= (SELECT max(start_us) FROM sample WHERE person_id = ?1 AND type_id = ?2) - ?3)
            """).get()
        bounds.bind(1, personID)
        bounds.bind(2, typeID)
        bounds.bind(3, try maxDuration(typeID: typeID, connection))
        let clear = try connection.cached("DELETE FROM merged_hour WHERE person_id = ? AND type_id = ?").get()
        clear.bind(1, personID)
        clear.bind(2, typeID)
        guard try bounds.step().get(), !bounds.isNull(0) else {
            bounds.reset()
            try clear.run().get()
            return
        }
        let first = Self.hourFloor(bounds.int64(0))
        let last = Self.hourFloor(bounds.int64(1)) + Self.hourMicroseconds
        bounds.reset()
        try clear.run().get()
        // Spans of a week keep the sample array bounded: memory does not grow with the history.
        let span = Self.longestRecomputedSpan
        var spans: [(Int64, Int64)] = []
        var start = first
        while start < last {
            spans.append((start, min(last, start + span)))
            start += span
        }
        try recomputeMergedHours(personID: personID, typeID: typeID, spans: spans, connection)
    }

    /// Builds the rows for every type when the store has none yet (first open after the migration).
    func ensureMergedHours() throws {
        let complete = try withConnection { connection in
            try connection.scalar("SELECT complete FROM merged_hour_state WHERE id = 1").get() ?? 0
        }
        guard complete == 0 else { return }
        try write(as: .owner) { transaction in
            // Every person's rows: no other writer may be recomputing theirs meanwhile.
            try transaction.connection.engine.widenToStore().get()
            guard try transaction.connection.scalar("SELECT complete FROM merged_hour_state WHERE id = 1").get() == 0 else { return }
            for typeID in self.mergedHourTypeIDs { try self.rebuildMergedHours(typeID: typeID, transaction.connection) }
            try transaction.connection.execute("UPDATE merged_hour_state SET complete = 1 WHERE id = 1").get()
        }
    }

    /// Merged sums per bucket from the hourly rows plus the samples of partial hours.
    func mergedSumsUsingHours(typeID: Int64, borders: [Int64], _ connection: Connection) throws(HealthStoreError) -> [Double?] {
        let bucketCount = borders.count - 1
        var sums = [Double](repeating: 0, count: bucketCount)
        var covered = [Bool](repeating: false, count: bucketCount)

        // Split each bucket into whole hours (from the rows) and edge pieces (from the samples).
        struct Piece { var start: Int64; var end: Int64; var bucket: Int }
        var pieces: [Piece] = []
        var hourly: [(from: Int64, to: Int64, bucket: Int)] = []
        for bucket in 0..<bucketCount {
            let (start, end) = (borders[bucket], borders[bucket + 1])
            let wholeFrom = Self.hourCeiling(start), wholeTo = Self.hourFloor(end)
            if wholeFrom < wholeTo {
                if start < wholeFrom { pieces.append(Piece(start: start, end: wholeFrom, bucket: bucket)) }
                hourly.append((wholeFrom, wholeTo, bucket))
                if wholeTo < end { pieces.append(Piece(start: wholeTo, end: end, bucket: bucket)) }
            } else {
                pieces.append(Piece(start: start, end: end, bucket: bucket))
            }
        }

        if let first = hourly.first, let last = hourly.last {
            let rows = try connection.cached("""
                SELECT hour_us, value FROM merged_hour WHERE person_id = ? AND type_id = ? AND hour_us >= ? AND hour_us < ?
                ORDER BY hour_us
                """).get()
            defer { rows.reset() }
            rows.bind(1, personID)
            rows.bind(2, typeID)
            rows.bind(3, first.from)
            rows.bind(4, last.to)
            var index = 0
            while try rows.step().get() {
                let hour = rows.int64(0)
                while index < hourly.count, hourly[index].to <= hour { index += 1 }
                guard index < hourly.count, hour >= hourly[index].from else { continue }
                sums[hourly[index].bucket] += rows.double(1)
                covered[hourly[index].bucket] = true
            }
        }

        // Contiguous edge pieces go to the sweep together.
        var runStart = 0
        let ranks = pieces.isEmpty ? [:] : try ranks(typeID: typeID, connection)
        while runStart < pieces.count {
            var runEnd = runStart + 1
            while runEnd < pieces.count, pieces[runEnd].start == pieces[runEnd - 1].end { runEnd += 1 }
            let run = pieces[runStart..<runEnd]
            let runBorders = [run.first!.start] + run.map(\.end)
            let samples = try mergeSamples(personID: personID, typeID: typeID, from: runBorders.first!, to: runBorders.last!,
                                           visible: nil,
                                           ranks: ranks, connection)
            for (offset, sum) in PriorityMerge.sums(samples, borders: runBorders).enumerated() {
                guard let sum else { continue }
                let bucket = run[run.startIndex + offset].bucket
                sums[bucket] += sum
                covered[bucket] = true
            }
            runStart = runEnd
        }
        return (0..<bucketCount).map { covered[$0] ? sums[$0] : nil }
    }
}
