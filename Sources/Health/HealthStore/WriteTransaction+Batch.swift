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

/// A sample of a batch was refused: which one (0-based, in the batch given) and why. The samples
/// before it were saved, exactly as if they had been saved one by one.
public struct BatchSaveError: Error, CustomStringConvertible {
    public var index: Int
    public var error: HealthStoreError
    public var description: String { "sample \(index + 1) of the batch: \(error)" }
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
        var outcomes: [SaveOutcome] = []
        outcomes.reserveCapacity(samples.count)
        // The transaction's buffer, taken (so that appending does not copy it) and given back.
        var pending = batchRows
        batchRows = []
        defer {
            pending.removeAll(keepingCapacity: true)
            batchRows = pending
        }
        for index in samples.indices {
            // A refused sample is reported after the samples before it are written, as one by one.
            func refuse(_ error: HealthStoreError) -> BatchSaveError {
                if case .failure(let failure) = writePending(&pending, into: &outcomes) { return failure }
                return BatchSaveError(index: index, error: error)
            }
            let source = samples[index].source ?? app
            let values: RowValues
            let newApp: Bool
            do throws(HealthStoreError) {
                if samples[index].source != nil, !app.isOwner {
                    throw .ownerOnly(operation: "saving for another source", app: app.id)
                }
                switch samples[index].payload {
                case .quantity(let quantity): values = try Self.rowValues(quantity)
                case .category(let category): values = try Self.rowValues(category)
                }
                newApp = try !knowsApp(source.id)
            } catch {
                throw refuse(error)
            }
            // A new app takes the next anchor as its first: what is pending goes first, as one by one.
            if newApp { try writePending(&pending, into: &outcomes).get() }
            do throws(HealthStoreError) {
                pending.append((index, try check(values, source: source)))
            } catch {
                throw refuse(error)
            }
            if pending.count == Self.batchSize { try writePending(&pending, into: &outcomes).get() }
        }
        try writePending(&pending, into: &outcomes).get()
        return outcomes
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
