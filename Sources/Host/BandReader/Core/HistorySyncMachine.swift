import BandProtocol
import BandWire

/// The history sync decisions — fetch → verify → commit → acknowledge — with no I/O: band
/// responses and "commit finished" go in, actions (send a fetch, await the transfer, commit,
/// acknowledge, report, finished) come out. ``SessionMachine`` drives it from inside, so
/// ``BandSession`` performs its actions on a live connection as the session's own;
/// ``RecordedSessionFeed`` drives the same machine from a recorded conversation.
///
/// Per slice of at most ``sliceSize`` records: Fetch(cursor) → data packets checked by
/// ``HistoryTransfer`` → Transfer Complete verified → records *and* the new cursor committed in
/// one store transaction → only then Acknowledge(end, CRC), which lets the band erase them.
///
/// | event | decision |
/// |---|---|
/// | fetch answered, cursor ahead or another history ID | the stored cursor means nothing here: restart from 0 (once); a transfer already announced from the stale cursor finishes unused |
/// | fetch answered, refused or foreign record size | driving: protocol error; following: the transfer is not used |
/// | data packet | ``HistoryTransfer/receive(_:)``; the first failure is kept for Transfer Complete |
/// | Transfer Complete, damaged | discarded, reported; driving: fetched again from the same cursor, giving up after ``maximumConsecutiveFailures`` |
/// | Transfer Complete, verified | commit records and the cursor after them (never moving a cursor of the same history back), when there is anything to commit |
/// | commit finished | driving: acknowledge a non-empty slice; a short slice ends the sync |
/// | acknowledgement answered | refused: reported, the records stay stored and the cursor past them |
///
/// ``Mode/driving`` is the reader's own sync, which sends its fetches and acknowledgements and
/// treats a misbehaving band as an error; ``Mode/following`` replays a recorded conversation,
/// where the requests are the recorded reader's and the machine only decides what reaches the
/// store (against its own store's cursor), never failing on what the band said.
public struct HistorySyncMachine {
    public enum Mode: Sendable { case driving, following }

    public enum Action {
        /// Write this fetch to the History Control Point.
        case sendFetch(HistoryFetchRequest)
        /// A transfer follows: feed its data packets to ``dataReceived(_:)`` and its Transfer
        /// Complete to ``transferCompleted(_:)``.
        case awaitTransfer
        /// Commit these records and the cursor after them in one transaction, then call
        /// ``commitFinished()``.
        case commit(records: [MinuteRecord], cursor: HistoryCursor, previous: HistoryCursor?, firstSequence: UInt32)
        /// Write this acknowledgement and feed the band's answer to ``acknowledged(_:)``.
        case sendAcknowledge(HistoryAcknowledgeRequest)
        case report(ReaderEvent)
        /// The band's history is synced; `minutes` were stored.
        case finished(minutes: Int)
        /// The sync cannot go on (driving only); the actions before it still apply.
        case fail(SessionError)
    }

    public let mode: Mode
    public var sliceSize: UInt16 = 1440
    /// Discarded transfers in a row before giving up on this connection (driving only).
    public var maximumConsecutiveFailures = 4
    /// Where the next fetch starts: the store's cursor, as committed by this machine.
    public private(set) var cursor: HistoryCursor?
    /// Minutes committed so far.
    public private(set) var stored = 0

    private var transfer: HistoryTransfer?
    private var transferFailure: HistoryTransferError?
    /// The transfer in flight was announced from a stale cursor: it finishes unused.
    private var transferUnused = false
    private var restartedFromZero = false
    private var failures = 0
    private var lastProgress = 0
    /// The verified transfer whose commit is in progress, for the acknowledgement after it.
    private var committing: (announced: HistoryFetchResponse, checksum: UInt32, minutes: Int)?

    public init(cursor: HistoryCursor?, mode: Mode) {
        self.cursor = cursor
        self.mode = mode
    }

    /// Whether a transfer is being received (data packets are expected).
    public var isReceiving: Bool { transfer != nil }

    // MARK: Events

    /// The sync begins: fetch from the cursor.
    public func start() -> [Action] { [.sendFetch(nextFetch)] }

    private var nextFetch: HistoryFetchRequest { HistoryFetchRequest(cursor: cursor?.nextSequence ?? 0, maxCount: sliceSize) }

    /// The band answered a fetch.
    public mutating func fetchAnswered(_ announced: HistoryFetchResponse) -> [Action] {
        transfer = nil
        transferFailure = nil
        transferUnused = false
        lastProgress = 0
        let historyChanged = cursor.map { $0.historyID != announced.historyID } ?? false
        if announced.status == .cursorAhead || historyChanged {
            // Another band, or this band's flash was wiped: the stored cursor means nothing here.
            var actions: [Action] = []
            if mode == .driving {
                guard !restartedFromZero else {
                    return [.fail(.controlPointProtocol("the band rejects cursor 0 of history \(announced.historyID) (\(announced.status))"))]
                }
                restartedFromZero = true
                actions.append(.report(.anomaly("history \(String(announced.historyID, radix: 16)) is not the one the cursor was saved for; starting again from its oldest record")))
            }
            cursor = HistoryCursor(historyID: announced.historyID, nextSequence: 0)
            if announced.status == .success {
                // A transfer from the stale cursor follows; let it finish unused.
                transferUnused = true
                transfer = HistoryTransfer(announced: announced)
                actions.append(.awaitTransfer)
            } else if mode == .driving {
                actions.append(.sendFetch(nextFetch))
            }
            return actions
        }
        guard announced.status == .success else {
            if mode == .following { return [] }
            return [.fail(.controlPointProtocol("history fetch refused: \(announced.status)"))]
        }
        guard announced.recordSize == UInt8(MinuteRecord.size) else {
            if mode == .following { return [] }
            return [.fail(.controlPointProtocol("history records of \(announced.recordSize) bytes; this reader understands \(MinuteRecord.size)"))]
        }
        transfer = HistoryTransfer(announced: announced)
        return [.report(.historyTransferStarted(firstSequence: announced.firstSequence, count: announced.count, gap: announced.gap)),
                .awaitTransfer]
    }

    /// One History Data notification. Returns a progress report now and then (driving only).
    public mutating func dataReceived(_ value: UnsafeRawBufferPointer) -> ReaderEvent? {
        guard transferFailure == nil, transfer != nil else { return nil }
        do {
            try transfer!.receive(value)
        } catch {
            transferFailure = error
            return nil
        }
        guard mode == .driving else { return nil }
        let received = transfer!.records.count
        let total = Int(transfer!.announced.count)
        guard received == total || received - lastProgress >= 240 else { return nil }
        lastProgress = received
        return .historyProgress(received: received, of: total)
    }

    /// The band's Transfer Complete.
    public mutating func transferCompleted(_ complete: HistoryTransferComplete) -> [Action] {
        let received = transfer
        let failure = transferFailure
        let unused = transferUnused
        transfer = nil
        transferFailure = nil
        transferUnused = false
        if unused { return mode == .driving ? [.sendFetch(nextFetch)] : [] }
        guard let received else {
            // Following a recording: no usable fetch announced this transfer.
            if mode == .following { return [] }
            return discard(.bandAborted(complete.status))
        }
        if let failure { return discard(failure) }
        do { try received.verify(complete) } catch { return discard(error) }
        failures = 0
        let announced = received.announced
        var next = HistoryCursor(historyID: announced.historyID, nextSequence: announced.endSequence,
                                 lastMinute: received.records.last?.minuteStart ?? cursor?.lastMinute)
        // A transfer of an older part of the same history (a replay against a store that is
        // further on) stores its records (a no-op if they are there) but never moves the cursor back.
        if let cursor, cursor.historyID == next.historyID, cursor.nextSequence > next.nextSequence { next = cursor }
        committing = (announced, received.checksum, received.records.count)
        guard !received.records.isEmpty || next != cursor else { return commitFinished() }
        let previous = cursor
        cursor = next
        return [.commit(records: received.records, cursor: next, previous: previous, firstSequence: announced.firstSequence)]
    }

    /// The commit asked for by ``Action/commit(records:cursor:previous:firstSequence:)`` is durable (or there
    /// was nothing to commit).
    public mutating func commitFinished() -> [Action] {
        guard let (announced, checksum, minutes) = committing else { return [] }
        stored += minutes
        if mode == .driving, announced.count > 0 {
            return [.sendAcknowledge(HistoryAcknowledgeRequest(endSequence: announced.endSequence, crc: checksum))]
        }
        return finishSlice(acknowledged: false)
    }

    /// The band answered the acknowledgement (driving only).
    public mutating func acknowledged(_ response: HistoryAcknowledgeResponse) -> [Action] {
        guard committing != nil else { return [] }
        let accepted = response.status == .success
        var actions: [Action] = []
        if !accepted {
            // Stored anyway; the band keeps the records and the cursor skips them.
            actions.append(.report(.anomaly("the band did not accept the acknowledgement: \(response.status)")))
        }
        return actions + finishSlice(acknowledged: accepted)
    }

    // MARK: Steps

    private mutating func finishSlice(acknowledged: Bool) -> [Action] {
        guard let (announced, _, minutes) = committing, let cursor else { return [] }
        committing = nil
        var actions: [Action] = [.report(.historyCommitted(minutes: minutes, cursor: cursor, acknowledged: acknowledged))]
        guard mode == .driving else { return actions }
        if announced.count < UInt32(sliceSize) {
            actions.append(.report(.historyComplete(minutes: stored)))
            actions.append(.finished(minutes: stored))
        } else {
            actions.append(.sendFetch(nextFetch))
        }
        return actions
    }

    private mutating func discard(_ error: HistoryTransferError) -> [Action] {
        let actions: [Action] = [.report(.historyDiscarded(error.description))]
        guard mode == .driving else { return actions }
        failures += 1
        if failures >= maximumConsecutiveFailures { return actions + [.fail(.historyRejected(error))] }
        return actions + [.sendFetch(nextFetch)]
    }
}
