import FoundationEssentials
import HealthModel

/// Sample queries (HealthKit `HKSampleQuery`).
extension HealthStore {
    static let sampleColumns = """
        s.anchor, s.uuid, s.type_id, s.start_us, s.end_us, s.value, a.bundle_id, s.app_version,
        d.name, d.manufacturer, d.model, d.hardware_id, d.firmware, s.zone, s.sync_id, s.sync_version,
        s.user_entered, s.metadata
        FROM sample s JOIN app a ON a.id = s.app_id LEFT JOIN device d ON d.id = s.device_id
        """

    /// The SQL condition of a time predicate over parameters ?2 (from), ?3 (to) and ?4 (from minus
    /// the type's longest sample, so the index range stays bounded).
    static func timeCondition(_ predicate: TimePredicate) -> String {
        switch predicate {
        case .overlaps:
            return "s.start_us >= ?4 AND s.start_us < ?3 AND (s.end_us > ?2 OR (s.end_us = s.start_us AND s.start_us >= ?2))"
        case .strictStart:
            return "s.start_us >= ?2 AND s.start_us < ?3"
        case .strictEnd:
            return """
                s.start_us >= ?4 AND s.start_us <= ?3 AND ((s.end_us > s.start_us AND s.end_us > ?2 AND s.end_us <= ?3) \
                OR (s.end_us = s.start_us AND s.start_us >= ?2 AND s.start_us < ?3))
                """
        case .strictStartAndEnd:
            return "s.start_us >= ?2 AND s.start_us < ?3 AND s.end_us <= ?3"
        }
    }

    /// Raw samples matching `query`, from every source `app` may see.
    public func samples(_ query: HealthQuery, as app: AppIdentity) throws -> [Sample] {
        if let limit = query.limit, limit <= 0 { return [] }
        return try read { connection in
            let visible = try visibilityFilter(for: app, type: query.type, connection)
            var conditions = ["s.person_id = ?9", "s.type_id = ?1", "(CAST(?5 AS BIGINT) IS NULL OR s.app_id = ?5)"]
            if query.range != nil { conditions.append(Self.timeCondition(query.predicate)) }
            if query.sources != nil { conditions.append("a.bundle_id IN (SELECT value FROM json_each(?7))") }
            if query.devices != nil {
                conditions.append("(d.name IN (SELECT value FROM json_each(?8)) OR d.hardware_id IN (SELECT value FROM json_each(?8)))")
            }
            let order: String
            switch query.sort {
            case .startAscending: order = "s.start_us ASC, s.anchor ASC"
            case .startDescending: order = "s.start_us DESC, s.anchor DESC"
            case .endDescending: order = "s.end_us DESC, s.start_us DESC, s.anchor DESC"
            }
            let sql = "SELECT \(Self.sampleColumns) WHERE \(conditions.joined(separator: " AND ")) ORDER BY \(order) LIMIT ?6"
            let statement = try connection.cached(sql).get()
            defer { statement.reset() }
            let typeID = typeID(query.type)
            statement.bind(1, typeID)
            if let range = query.range {
                let from = range.lowerBound.microsecondsSince1970
                let maxDuration = try connection.scalar("SELECT max_duration_us FROM sample_type WHERE id = ?") {
                    $0.bind(1, typeID)
                }.get() ?? 0
                statement.bind(2, from)
                statement.bind(3, range.upperBound.microsecondsSince1970)
                statement.bind(4, from - maxDuration)
            }
            statement.bind(5, visible)
            statement.bind(6, Int64(query.limit ?? Int.max))  // no LIMIT -1: PostgreSQL refuses it
            if let sources = query.sources { statement.bind(7, MetadataCoding.array(sources)) }
            if let devices = query.devices { statement.bind(8, MetadataCoding.array(devices)) }
            statement.bind(9, personID)
            var samples: [Sample] = []
            while try statement.step().get() {
                if let sample = decodeSample(statement) { samples.append(sample) }
            }
            return samples
        }
    }

    /// The samples `app` itself saved, of any of `types`, starting in `range`, by start time: one
    /// statement for every type (a writer reading back what it stored, to merge into it). An app
    /// always sees its own samples, so no read grant is consulted.
    public func ownSamples(of types: [SampleType], startingIn range: Range<Date>, as app: AppIdentity) throws -> [Sample] {
        if types.isEmpty { return [] }
        return try readOneStatement { connection in
            guard let appID = try existingAppID(app.id, connection) else { return [] }
            let typeList = Array(repeating: "?", count: types.count).joined(separator: ", ")
            let statement = try connection.cached("""
                SELECT \(Self.sampleColumns) WHERE s.person_id = ? AND s.app_id = ? AND s.start_us >= ? AND s.start_us < ? \
                AND s.type_id IN (\(typeList)) ORDER BY s.start_us ASC, s.anchor ASC
                """).get()
            defer { statement.reset() }
            statement.bind(1, personID)
            statement.bind(2, appID)
            statement.bind(3, range.lowerBound.microsecondsSince1970)
            statement.bind(4, range.upperBound.microsecondsSince1970)
            for (index, type) in types.enumerated() { statement.bind(Int32(index + 5), typeID(type)) }
            var samples: [Sample] = []
            while try statement.step().get() {
                if let sample = decodeSample(statement) { samples.append(sample) }
            }
            return samples
        }
    }

    /// The sample of `type` that ended last (HealthKit's "most recent"), or nil.
    public func mostRecentSample(of type: QuantityType, as app: AppIdentity) throws -> QuantitySample? {
        try samples(HealthQuery(type: type, limit: 1, sort: .endDescending), as: app).first?.quantitySample
    }

    /// Decodes a row selected with ``sampleColumns``.
    func decodeSample(_ row: Statement) -> Sample? {
        guard let id = row.uuid(1), let type = typesByID[row.int64(2)] else { return nil }
        let start = Date(microsecondsSince1970: row.int64(3))
        let end = Date(microsecondsSince1970: row.int64(4))
        let source = AppIdentity(id: row.text(6) ?? "", version: row.text(7) ?? "")
        var device: DeviceInfo?
        if !row.isNull(8) {
            func field(_ column: Int32) -> String? {
                guard let text = row.text(column), !text.isEmpty else { return nil }
                return text
            }
            device = DeviceInfo(name: field(8), manufacturer: field(9), model: field(10),
                                hardwareIdentifier: field(11), firmwareVersion: field(12))
        }
        let zone = row.text(13).flatMap(TimeZone.init(identifier:))
        let syncID = row.text(14)
        let syncVersion = row.int64(15)
        let userEntered = row.int64(16) != 0
        let metadata = MetadataCoding.decode(row.text(17))
        switch type {
        case .quantity(let quantityType):
            return .quantity(QuantitySample(id: id, type: quantityType, quantity: Quantity(row.double(5), quantityType.canonicalUnit),
                                            start: start, end: end, timeZone: zone, device: device, syncIdentifier: syncID,
                                            syncVersion: syncVersion, userEntered: userEntered, metadata: metadata,
                                            source: source))
        case .category(let categoryType):
            return .category(CategorySample(id: id, type: categoryType, value: Int(row.double(5)), start: start, end: end,
                                            timeZone: zone, device: device, syncIdentifier: syncID, syncVersion: syncVersion,
                                            userEntered: userEntered, metadata: metadata, source: source))
        case .workout:
            return nil
        }
    }

    /// Workouts overlapping `range` (all when nil) that `app` may see, by start time.
    public func workouts(in range: Range<Date>? = nil, as app: AppIdentity) throws -> [Workout] {
        try read { connection in
            let visible = try visibilityFilter(for: app, type: .workout, connection)
            let statement = try connection.cached("""
                SELECT \(Self.workoutColumns)
                WHERE w.person_id = ?4 AND (CAST(?1 AS BIGINT) IS NULL OR w.app_id = ?1) AND w.start_us < ?3 AND w.end_us >= ?2
                ORDER BY w.start_us, w.anchor
                """).get()
            defer { statement.reset() }
            statement.bind(1, visible)
            statement.bind(4, personID)
            statement.bind(2, range?.lowerBound.microsecondsSince1970 ?? Int64.min)
            statement.bind(3, range?.upperBound.microsecondsSince1970 ?? Int64.max)
            var workouts: [Workout] = []
            while try statement.step().get() {
                if let workout = decodeWorkout(statement) { workouts.append(workout) }
            }
            return workouts
        }
    }
}
