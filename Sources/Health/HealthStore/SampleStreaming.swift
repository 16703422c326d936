import FoundationEssentials
import HealthModel

/// Streaming reads for exports: rows handed over one at a time, a bounded page at a time, so a
/// reader's memory stays flat however large the store is.
///
/// Why pages rather than one open statement: the PostgreSQL engine runs a statement with
/// `PQexecPrepared`, which materialises the whole result in the client; a page keyed on
/// `(start_us, anchor)` (keyset pagination, no OFFSET) costs an index seek per page on both
/// engines and holds at most `pageSize` rows. Every page runs in the same read transaction, so
/// the stream sees one snapshot.
extension HealthStore {
    /// Rows fetched per page by ``forEachSample(_:as:pageSize:_:)`` and ``forEachWorkout(in:as:pageSize:_:)``.
    public static let streamPageSize = 2_048

    /// Calls `body` with each sample matching `query` that `app` may see, by start time (then
    /// anchor). `query.sort` is ignored (the stream is always start-ascending); `query.limit`
    /// still caps the count. `body` runs inside the store's read transaction: it must not write
    /// to this store.
    public func forEachSample(_ query: HealthQuery, as app: AppIdentity, pageSize: Int = streamPageSize,
                              _ body: (Sample) throws -> Void) throws {
        precondition(pageSize > 0, "a page holds at least one row")
        var remaining = query.limit ?? Int.max
        if remaining <= 0 { return }
        try read { connection in
            let visible = try visibilityFilter(for: app, type: query.type, connection)
            var conditions = ["s.person_id = ?11", "s.type_id = ?1", "(CAST(?5 AS BIGINT) IS NULL OR s.app_id = ?5)",
                              "s.start_us >= ?9", "(s.start_us > ?9 OR s.anchor > ?10)"]
            if query.range != nil { conditions.append(Self.timeCondition(query.predicate)) }
            if query.sources != nil { conditions.append("a.bundle_id IN (SELECT value FROM json_each(?7))") }
            if query.devices != nil {
                conditions.append("(d.name IN (SELECT value FROM json_each(?8)) OR d.hardware_id IN (SELECT value FROM json_each(?8)))")
            }
            let sql = """
                SELECT \(Self.sampleColumns) WHERE \(conditions.joined(separator: " AND ")) \
                ORDER BY s.start_us ASC, s.anchor ASC LIMIT ?6
                """
            let typeID = typeID(query.type)
            var earliestStart = Int64.min
            if let range = query.range {
                let maxDuration = try connection.scalar("SELECT max_duration_us FROM sample_type WHERE id = ?") {
                    $0.bind(1, typeID)
                }.get() ?? 0
                earliestStart = range.lowerBound.microsecondsSince1970 - maxDuration
            }
            // The key of the last row handed over: the next page starts strictly after it.
            var afterStart = earliestStart
            var afterAnchor = Int64.min
            while remaining > 0 {
                let statement = try connection.cached(sql).get()
                defer { statement.reset() }
                statement.bind(1, typeID)
                if let range = query.range {
                    statement.bind(2, range.lowerBound.microsecondsSince1970)
                    statement.bind(3, range.upperBound.microsecondsSince1970)
                    // Rows still to come start at or after the cursor: a tighter index bound.
                    statement.bind(4, afterStart)
                }
                statement.bind(5, visible)
                statement.bind(6, Int64(min(pageSize, remaining)))
                if let sources = query.sources { statement.bind(7, MetadataCoding.array(sources)) }
                if let devices = query.devices { statement.bind(8, MetadataCoding.array(devices)) }
                statement.bind(9, afterStart)
                statement.bind(10, afterAnchor)
                statement.bind(11, personID)
                var rows = 0
                while try statement.step().get() {
                    rows += 1
                    afterAnchor = statement.int64(0)
                    afterStart = statement.int64(3)
                    if let sample = decodeSample(statement) {
                        remaining -= 1
                        try body(sample)
                    }
                }
                if rows < pageSize { return }
            }
        }
    }

    /// Calls `body` with each workout overlapping `range` (all when nil) that `app` may see, by
    /// start time (then anchor), a page at a time like ``forEachSample(_:as:pageSize:_:)``.
    public func forEachWorkout(in range: Range<Date>? = nil, as app: AppIdentity, pageSize: Int = streamPageSize,
                               _ body: (Workout) throws -> Void) throws {
        precondition(pageSize > 0, "a page holds at least one row")
        try read { connection in
            let visible = try visibilityFilter(for: app, type: .workout, connection)
            let sql = """
                SELECT \(Self.workoutColumns)
                WHERE w.person_id = ?7 AND (CAST(?1 AS BIGINT) IS NULL OR w.app_id = ?1) AND w.start_us < ?3 AND w.end_us >= ?2
                AND w.start_us >= ?4 AND (w.start_us > ?4 OR w.anchor > ?5)
                ORDER BY w.start_us, w.anchor LIMIT ?6
                """
            var afterStart = Int64.min
            var afterAnchor = Int64.min
            while true {
                let statement = try connection.cached(sql).get()
                defer { statement.reset() }
                statement.bind(1, visible)
                statement.bind(2, range?.lowerBound.microsecondsSince1970 ?? Int64.min)
                statement.bind(3, range?.upperBound.microsecondsSince1970 ?? Int64.max)
                statement.bind(4, afterStart)
                statement.bind(5, afterAnchor)
                statement.bind(6, Int64(pageSize))
                statement.bind(7, personID)
                var rows = 0
                while try statement.step().get() {
                    rows += 1
                    afterStart = statement.int64(2)
                    afterAnchor = statement.int64(14)
                    if let workout = decodeWorkout(statement) { try body(workout) }
                }
                if rows < pageSize { return }
            }
        }
    }
}
