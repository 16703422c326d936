import HealthModel

/// What the store knows about one source of a type.
public struct SourceSummary: Hashable, Sendable {
    public var source: String
    public var sampleCount: Int
    /// Whether the source records with a device (band, watch, phone sensor).
    public var recordsDevice: Bool
    /// 1-based position in the effective priority order of the type.
    public var priority: Int
}

/// Source priority per type (cumulative statistics take each instant from the best source).
///
/// The effective order is the user's list (`health priority TYPE SOURCE...`), then every other
/// source in the default order, which follows Apple's (support.apple.com HT204351):
/// 1. manual entries: the owner (`health`), where `health add` saves;
/// 2. sources that record with a device (they saved at least one sample carrying a
///    ``DeviceInfo``: the user's band, watch, phone);
/// 3. other apps;
/// newest source first within 2 and 3.
extension HealthStore {
    /// App row ids in effective priority order for a type.
    func priorityOrder(typeID: Int64, _ connection: Connection) throws(HealthStoreError) -> [(id: Int64, bundleID: String)] {
        let select = try connection.cached("""
            SELECT a.id, a.bundle_id FROM app a LEFT JOIN source_priority p ON p.app_id = a.id AND p.type_id = ?1
            ORDER BY p.rank IS NULL, p.rank, a.bundle_id != ?2, a.records_device DESC, a.first_anchor DESC, a.id DESC
            """).get()
        defer { select.reset() }
        select.bind(1, typeID)
        select.bind(2, AppIdentity.owner.id)
        var order: [(Int64, String)] = []
        while try select.step().get() { order.append((select.int64(0), select.text(1) ?? "")) }
        return order
    }

    /// The effective source order for `type` (best first), over every known app.
    public func sourcePriority(for type: SampleType) throws -> [String] {
        try read { connection in try priorityOrder(typeID: typeID(type), connection).map(\.bundleID) }
    }

    /// Sets the user's source order for `type`; sources not listed follow in default order.
    /// Owner-only: this is `health priority`.
    public func setSourcePriority(for type: SampleType, sources: [String]) throws {
        try write(as: .owner) { transaction in
            let typeID = self.typeID(type)
            let clear = try transaction.connection.cached("DELETE FROM source_priority WHERE type_id = ?").get()
            clear.bind(1, typeID)
            try clear.run().get()
            let insert = try transaction.connection.cached(
                "INSERT INTO source_priority (type_id, app_id, rank) VALUES (?, ?, ?)").get()
            for (rank, source) in sources.enumerated() {
                insert.bind(1, typeID)
                insert.bind(2, try transaction.appID(source))
                insert.bind(3, rank)
                try insert.run().get()
            }
            if self.keepsMergedHours(typeID) { transaction.typesToRebuild.insert(typeID) }
        }
    }

    /// Sources with samples of `type` (every type when nil) of the store's person visible to
    /// `app`, in priority order. (The order itself is the store's, shared by all its people.)
    public func sources(of type: SampleType?, as app: AppIdentity = .owner) throws -> [SourceSummary] {
        try read { connection in
            let types = type.map { [$0] } ?? SampleType.all.filter { $0 != .workout }
            // Keyed by the app's row, not its name: two names that differ only in Unicode
            // normalisation are two apps (``ExactText``).
            var counts: [Int64: (source: String, count: Int, device: Bool, priority: Int)] = [:]
            for type in types {
                let typeID = typeID(type)
                let visible = try visibilityFilter(for: app, type: type, connection)
                let order = try priorityOrder(typeID: typeID, connection)
                let count = try connection.cached("""
                    SELECT s.app_id, count(*), a.records_device FROM sample s JOIN app a ON a.id = s.app_id
                    WHERE s.person_id = ?3 AND s.type_id = ?1 AND (CAST(?2 AS BIGINT) IS NULL OR s.app_id = ?2)
                    GROUP BY s.app_id, a.records_device
                    """).get()
                defer { count.reset() }
                count.bind(1, typeID)
                count.bind(2, visible)
                count.bind(3, personID)
                while try count.step().get() {
                    let appID = count.int64(0)
                    guard let position = order.firstIndex(where: { $0.id == appID }) else { continue }
                    let previous = counts[appID]
                    counts[appID] = (order[position].bundleID, (previous?.count ?? 0) + count.int(1), count.int64(2) != 0,
                                     min(previous?.priority ?? Int.max, position + 1))
                }
            }
            return counts.values.map { SourceSummary(source: $0.source, sampleCount: $0.count, recordsDevice: $0.device,
                                              priority: $0.priority) }
                .sorted { ($0.priority, $0.source) < ($1.priority, $1.source) }
        }
    }
}
