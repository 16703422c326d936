import FoundationEssentials
import HealthModel

/// One sample of a batch saved by ``WriteTransaction/save(_:)->[SaveOutcome]``.
public struct SampleToSave: Sendable {
    public enum Payload: Sendable {
        case quantity(QuantitySample)
        case category(CategorySample)
    }

    public var payload: Payload
    /// The source it is attributed to (owner only, as ``WriteTransaction/save(_:attributedTo:)-(QuantitySample,_)``);
    /// nil: the transaction's app.
    public var source: AppIdentity?

    public init(_ sample: QuantitySample, attributedTo source: AppIdentity? = nil) {
        payload = .quantity(sample)
        self.source = source
    }

    public init(_ sample: CategorySample, attributedTo source: AppIdentity? = nil) {
        payload = .category(sample)
        self.source = source
    }
}

/// A sample of a batch was refused: which one (0-based, in the batch given, or the tag it was
/// appended with) and why. The samples before it were saved, exactly as if they had been saved one by one.
public struct BatchSaveError: Error, CustomStringConvertible {
    public var index: Int
    public var error: HealthStoreError
    public var description: String { "sample \(index + 1) of the batch: \(error)" }
}

/// A sample type, source and device resolved to the store's ids by
/// ``WriteTransaction/series(type:source:device:tag:outcomes:)``, once for the many samples that share them.
public struct SampleSeries: Sendable {
    let type: SampleType
    let typeID: Int64
    let maximumDuration: Double
    let appID: Int64
    let version: String
    let deviceID: Int64?
}

/// Saving many samples at once: what `health import` and the reader's history batch do.
///
/// The outcome is the one saving them one by one gives, on both engines: the same rows, sync-identifier
/// rule, tombstones, anchors, merged hours, errors (and the samples before an error saved). What differs
/// is the number of statements. Up to ``batchSize`` checked rows are sent as multi-row
/// `INSERT … ON CONFLICT DO NOTHING` statements inside a savepoint: on PostgreSQL every statement is a
/// round trip to the server, and on SQLite each statement has a fixed cost (opening the table and index
/// cursors, starting and ending its statement transaction) that one row a statement paid per sample. When
/// every row went in (new samples: the common case) that is all. When one did not (its sync identifier is
/// taken: a replacement or an unchanged re-sync) or a statement failed (a duplicate id), the savepoint is
/// rolled back, the anchor counter rewound, and the same rows are written again one by one, which gives
/// exactly the row-by-row result, including which sample an error names.
extension WriteTransaction {
    /// Rows sent together, and a good size for a caller's batches (in statements of 256, 128, … rows: at most 9 distinct
    /// prepared statements; 256 × 15 parameters stays far below the protocol's 65,535).
    public static let batchSize = 512
    private static let largestInsert = 256

    /// Saves `samples` in order, returning each one's outcome. Throws ``BatchSaveError`` naming the
    /// first sample refused (those before it are saved, as with one-by-one saves).
    @discardableResult
    public func save(_ samples: [SampleToSave]) throws(BatchSaveError) -> [SaveOutcome] {
        guard batchRows.isEmpty else {
            throw BatchSaveError(index: 0, error: .misuse("samples were appended but not written: call writeAppended(into:) first"))
        }
        var outcomes: [SaveOutcome] = []
        outcomes.reserveCapacity(samples.count)
        for index in samples.indices { try append(samples[index], tag: index, outcomes: &outcomes) }
        try writeAppended(into: &outcomes)
        return outcomes
    }

    /// Appends a sample to the rows written together: at ``batchSize`` rows, and by
    /// ``writeAppended(into:)``, which the caller must call before anything else writes (a workout,
    /// the commit). Outcomes of rows written are appended to `outcomes`, in order. A refused sample
    /// is reported as ``BatchSaveError`` with `tag` as its index (a file's line number, say), after
    /// the rows before it are written, exactly as one-by-one saves would.
    public func append(_ sample: borrowing SampleToSave, tag: Int, outcomes: inout [SaveOutcome]) throws(BatchSaveError) {
        let source = sample.source ?? app
        let values: RowValues
        let newApp: Bool
        do throws(HealthStoreError) {
            if sample.source != nil, !app.isOwner {
                throw .ownerOnly(operation: "saving for another source", app: app.id)
            }
            switch sample.payload {
            case .quantity(let quantity): values = try Self.rowValues(quantity)
            case .category(let category): values = try Self.rowValues(category)
            }
            newApp = try !knowsApp(source.id)
        } catch {
            throw refuse(error, tag: tag, outcomes: &outcomes)
        }
        // A new app takes the next anchor as its first: what is pending goes first, as one by one.
        if newApp { try writeAppended(into: &outcomes) }
        do throws(HealthStoreError) {
            batchRows.append((tag, try check(values, source: source)))
        } catch {
            throw refuse(error, tag: tag, outcomes: &outcomes)
        }
        if batchRows.count == Self.batchSize { try writeAppended(into: &outcomes) }
    }

    /// Resolves a sample type, the source samples are attributed to (owner only, as
    /// ``save(_:attributedTo:)-(QuantitySample,_)``) and their device to the store's rows, once for
    /// the many samples a bulk import appends with ``append(_:id:value:start:end:zone:syncIdentifier:syncVersion:userEntered:metadata:tag:outcomes:)``.
    /// Creates the app and device when new (a new app's first anchor follows the rows appended
    /// before, which are written first). Valid in this transaction only.
    public func series(type: SampleType, source: AppIdentity, device: DeviceInfo?, tag: Int,
                       outcomes: inout [SaveOutcome]) throws(BatchSaveError) -> SampleSeries {
        let newApp: Bool
        do throws(HealthStoreError) {
            try ensureOpen()
            guard app.isOwner else { throw .ownerOnly(operation: "saving for another source", app: app.id) }
            if case .workout = type { throw .invalidSample("a workout is saved with save(_:attributedTo:), not as a sample") }
            try checkWritable(type)
            newApp = try !knowsApp(source.id)
        } catch {
            throw refuse(error, tag: tag, outcomes: &outcomes)
        }
        if newApp { try writeAppended(into: &outcomes) }
        do throws(HealthStoreError) {
            let appID = try self.appID(source.id)
            let deviceID = try device.map { device throws(HealthStoreError) in try self.deviceID(device) }
            return SampleSeries(type: type, typeID: store.typeID(type), maximumDuration: type.maximumDuration,
                                appID: appID, version: source.version, deviceID: deviceID)
        } catch {
            throw refuse(error, tag: tag, outcomes: &outcomes)
        }
    }

    /// Appends one sample of `series` from its row's values: what ``append(_:tag:outcomes:)`` does
    /// with a sample, checked the same way, without building one. `value` is in the type's
    /// canonical unit (a category's value index); `zone` a time zone's identifier.
    public func append(_ series: SampleSeries, id: UUID, value: Double, start: Date, end: Date, zone: String?,
                       syncIdentifier: String?, syncVersion: Int64, userEntered: Bool, metadata: [String: String],
                       tag: Int, outcomes: inout [SaveOutcome]) throws(BatchSaveError) {
        do throws(HealthStoreError) {
            try ensureOpen()
            if case .category(let category) = series.type, !(value >= 0 && value < Double(category.valueNames.count) && value == value.rounded()) {
                throw .invalidSample("\(category) value \(value) is not one of 0..<\(category.valueNames.count)")
            }
            guard value.isFinite else { throw .invalidSample("value \(value) is not a finite number") }
            let startMicroseconds = start.microsecondsSince1970
            let endMicroseconds = end.microsecondsSince1970
            guard endMicroseconds >= startMicroseconds else { throw .invalidSample("end \(end) is before start \(start)") }
            if let problem = PlausibleRange.problem(start: start, end: end, maximumDuration: series.maximumDuration) {
                throw .invalidSample("\(series.type) \(problem)")
            }
            if series.deviceID != nil { noteRecordsDevice(appID: series.appID) }
            batchRows.append((tag, CheckedRow(id: id, typeID: series.typeID, value: value, start: startMicroseconds,
                                              end: endMicroseconds, appID: series.appID, version: series.version,
                                              deviceID: series.deviceID, zone: zone, syncIdentifier: syncIdentifier,
                                              syncVersion: syncVersion, userEntered: userEntered,
                                              metadata: MetadataCoding.encode(metadata))))
        } catch {
            throw refuse(error, tag: tag, outcomes: &outcomes)
        }
        if batchRows.count == Self.batchSize { try writeAppended(into: &outcomes) }
    }

    /// Writes the rows appended and not yet written, appending their outcomes.
    public func writeAppended(into outcomes: inout [SaveOutcome]) throws(BatchSaveError) {
        try writePending(&batchRows, into: &outcomes).get()
    }

    /// A refused sample is reported after the rows appended before it are written, as one by one.
    private func refuse(_ error: HealthStoreError, tag: Int, outcomes: inout [SaveOutcome]) -> BatchSaveError {
        if case .failure(let failure) = writePending(&batchRows, into: &outcomes) { return failure }
        return BatchSaveError(index: tag, error: error)
    }

    /// Writes the pending rows (emptying `pending`) and appends their outcomes. A failure names the
    /// row refused, or the first pending row when the store failed as a whole.
    private func writePending(_ pending: inout [(index: Int, row: CheckedRow)],
                              into outcomes: inout [SaveOutcome]) -> Result<Void, BatchSaveError> {
        defer { pending.removeAll(keepingCapacity: true) }
        guard !pending.isEmpty else { return .success(()) }
        let firstAnchor = anchor
        // One row is written as one by one: no savepoint to pay for.
        if pending.count > 1 {
            do throws(HealthStoreError) {
                try batchSavepoint(release: false)
                if try insertAll(pending) {
                    try batchSavepoint(release: true)
                    for position in pending.indices {
                        let (typeID, start, end) = (pending[position].row.typeID, pending[position].row.start, pending[position].row.end)
                        recordDuration(typeID: typeID, end - start)
                        markHours(typeID: typeID, start: start, end: end)
                        outcomes.append(.inserted)
                    }
                    return .success(())
                }
                // A key was taken or a statement failed: write them again as if one by one.
                try connection.execute("ROLLBACK TO SAVEPOINT bandkit_batch; RELEASE SAVEPOINT bandkit_batch").get()
            } catch {
                return .failure(BatchSaveError(index: pending[0].index, error: error))
            }
        }
        rewindAnchors(to: firstAnchor)
        for position in pending.indices {
            do throws(HealthStoreError) { outcomes.append(try write(pending[position].row)) } catch {
                return .failure(BatchSaveError(index: pending[position].index, error: error))
            }
        }
        return .success(())
    }

    /// Inserts `rows` in multi-row statements; true when every row went in. False when a row's sync
    /// key was taken or a statement failed for a reason the row-by-row path will name; a lost
    /// connection is thrown (the transaction is gone with it).
    private func insertAll(_ rows: borrowing [(index: Int, row: CheckedRow)]) throws(HealthStoreError) -> Bool {
        var offset = 0
        var size = Self.largestInsert
        while offset < rows.count {
            while size > rows.count - offset { size /= 2 }
            let insert = try batchInsert(rows: size)
            for position in 0..<size { try bindSample(insert, at: position, rows[offset + position].row) }
            switch insert.run(keepingBindings: true) {
            case .success:
                if connection.changes != size { return false }
            case .failure(let error):
                if error.isServerUnavailable { throw .database(error) }
                return false
            }
            offset += size
        }
        return true
    }
}
