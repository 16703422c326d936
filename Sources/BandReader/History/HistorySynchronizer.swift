import BandGATTClient
import BandProtocol
import BandWire

/// Syncs the band's minute history into the store, from the stored cursor to the newest record.
///
/// Per slice of at most ``sliceSize`` records: Fetch(cursor) → data packets checked by
/// ``HistoryTransfer`` → Transfer Complete verified → records *and* the new cursor committed in
/// one store transaction → only then Acknowledge(end, CRC), which lets the band erase them. A
/// crash or disconnect anywhere in between loses nothing and duplicates nothing: before the
/// commit the band still has the records and the cursor still points at them; after it, the
/// cursor has moved past them and the store's sync identifiers make a repeat a no-op.
public final class HistorySynchronizer {
    public let connection: BandConnection
    public let writer: SampleWriter
    public var sliceSize: UInt16 = 1440
    /// Discarded transfers in a row before giving up on this connection.
    public var maximumConsecutiveFailures = 4
    private let report: (ReaderEvent) -> Void

    /// The decisions (``HistorySyncMachine``); this type only performs its actions on the link
    /// and the store.
    private var machine = HistorySyncMachine(cursor: nil, mode: .driving)

    public init(connection: BandConnection, writer: SampleWriter, report: @escaping (ReaderEvent) -> Void) {
        self.connection = connection
        self.writer = writer
        self.report = report
    }

    /// Runs to the end of the band's history. Returns the minutes stored, or nil when a stop was
    /// requested (everything committed so far stays committed and acknowledged).
    public func run() throws(SessionError) -> Int? {
        guard let activity = connection.profile.activity else {
            throw .notABand("the device has no band activity service, so it keeps no history")
        }
        let control = activity.historyControlPoint
        let dataHandle = activity.historyData.valueHandle
        try connection.subscribe(control, .indications, during: .history)
        try connection.subscribe(activity.historyData, .notifications, during: .history)
        let previousHandler = connection.valueHandler
        connection.valueHandler = { [unowned self] handle, value in
            guard handle == dataHandle else { previousHandler?(handle, value); return }
            if let progress = machine.dataReceived(value) { report(progress) }
        }
        defer { connection.valueHandler = previousHandler }

        let cursor: HistoryCursor?
        do { cursor = try writer.cursor() } catch { throw .store(StoreFailure(.readCursor, error)) }
        machine = HistorySyncMachine(cursor: cursor, mode: .driving)
        machine.sliceSize = sliceSize
        machine.maximumConsecutiveFailures = maximumConsecutiveFailures
        var pending = machine.start()[...]
        while let action = pending.popFirst() {
            var next: [HistorySyncMachine.Action] = []
            switch action {
            case .sendFetch(let request):
                guard let bytes = try connection.request(request.encodedBytes(capacity: HistoryFetchRequest.size),
                                                         on: control, what: "the history fetch", during: .history) else { return nil }
                next = machine.fetchAnswered(try connection.decode(bytes, as: HistoryFetchResponse.self, what: "history fetch"))
            case .awaitTransfer:
                guard let bytes = try connection.awaitResponse(on: control, what: "the end of the history transfer", during: .history) else {
                    return nil
                }
                let response: HistoryResponse
                do { response = try HistoryResponse(parsingAll: bytes) } catch {
                    throw .controlPointProtocol("history response \(Hex.encode(bytes)) does not decode: \(error)")
                }
                guard case .transferComplete(let complete) = response else {
                    throw .controlPointProtocol("expected Transfer Complete, got \(response)")
                }
                next = machine.transferCompleted(complete)
            case .commit(let records, let cursor, let previous):
                do { try writer.commitHistory(records, cursor: cursor, previous: previous) } catch { throw .store(StoreFailure(.commitHistory, error)) }
                next = machine.commitFinished()
            case .sendAcknowledge(let ack):
                guard let bytes = try connection.request(ack.encodedBytes(capacity: HistoryAcknowledgeRequest.size),
                                                         on: control, what: "the history acknowledgement", during: .history) else { return nil }
                next = machine.acknowledged(try connection.decode(bytes, as: HistoryAcknowledgeResponse.self, what: "history acknowledgement"))
            case .report(let event):
                report(event)
            case .finished(let minutes):
                return minutes
            case .fail(let error):
                throw error
            }
            pending.insert(contentsOf: next, at: pending.startIndex)
        }
        throw .controlPointProtocol("the history sync stopped without finishing")
    }
}
