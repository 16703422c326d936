import BandGATT
import BandGATTClient
import BandProtocol
import BandWire
import HealthStore

/// The history sync's steps on the band's History Control Point and the store.
extension BandSession {
    /// Performs one step of a history sync on the band's History Control Point and the store
    /// (fetch → verify → commit → acknowledge, see ``HistorySyncMachine``) and returns what the
    /// machine does next. A stop while waiting for the band ends the sync.
    func performHistoryStep(_ action: SessionMachine.Action, writer: SampleWriter?) throws(SessionError) -> [SessionMachine.Action] {
        guard let activity = connection.profile.activity else {
            throw .notABand("the device has no band activity service, so it keeps no history")
        }
        let control = activity.historyControlPoint
        switch action {
        case .syncHistory:
            guard let writer else { throw .store(StoreFailure(.prepareWriter, HealthStoreError.misuse("no store writer before the history sync"))) }
            try connection.subscribe(control, .indications, during: .history)
            try connection.subscribe(activity.historyData, .notifications, during: .history)
            let cursor: HistoryCursor?
            do { cursor = try writer.cursor() } catch { throw .store(StoreFailure(.readCursor, error)) }
            return machine.historyCursorRead(cursor, at: clock.now)
        case .sendHistoryFetch(let request):
            guard let bytes = try connection.request(request.encodedBytes(capacity: HistoryFetchRequest.size),
                                                     on: control, what: "the history fetch", during: .history) else { return machine.historyStopped(at: clock.now) }
            let announced = try connection.decode(bytes, as: HistoryFetchResponse.self, what: "history fetch")
            return machine.historyFetchAnswered(announced, at: clock.now)
        case .awaitHistoryTransfer:
            guard let bytes = try connection.awaitResponse(on: control, what: "the end of the history transfer", during: .history) else {
                return machine.historyStopped(at: clock.now)
            }
            let response: HistoryResponse
            do { response = try HistoryResponse(parsingAll: bytes) } catch {
                throw .controlPointProtocol("history response \(Hex.encode(bytes)) does not decode: \(error)")
            }
            guard case .transferComplete(let complete) = response else {
                throw .controlPointProtocol("expected Transfer Complete, got \(response)")
            }
            return machine.historyTransferCompleted(complete, at: clock.now)
        case .commitHistory(let records, let cursor, let previous, let first):
            guard let writer else { throw .store(StoreFailure(.commitHistory, HealthStoreError.misuse("no store writer for the history commit"))) }
            let started = clock.now
            let written: StoreWrite
            do { written = try writer.commitHistory(records, cursor: cursor, previous: previous, firstSequence: first) } catch { throw .store(StoreFailure(.commitHistory, error)) }
            report(.storeWrite(StoreWriteTiming(batch: .history, rows: written.inserted + written.replaced, duration: clock.now - started)))
            return machine.historyCommitFinished(at: clock.now)
        case .acknowledgeHistory(let ack):
            guard let bytes = try connection.request(ack.encodedBytes(capacity: HistoryAcknowledgeRequest.size),
                                                     on: control, what: "the history acknowledgement", during: .history) else { return machine.historyStopped(at: clock.now) }
            let response = try connection.decode(bytes, as: HistoryAcknowledgeResponse.self, what: "history acknowledgement")
            return machine.historyAcknowledged(response, at: clock.now)
        default:
            return []
        }
    }

}
