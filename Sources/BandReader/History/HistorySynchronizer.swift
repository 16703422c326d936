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

    private var transfer: HistoryTransfer?
    private var transferFailure: HistoryTransferError?
    private var lastProgress = 0

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
            receiveData(value)
        }
        defer { connection.valueHandler = previousHandler }

        var cursor: HistoryCursor?
        do { cursor = try writer.cursor() } catch { throw .store("\(error)") }
        var stored = 0
        var failures = 0
        var restartedFromZero = false
        while true {
            let request = HistoryFetchRequest(cursor: cursor?.nextSequence ?? 0, maxCount: sliceSize)
            guard let fetchBytes = try connection.request(request.encodedBytes(capacity: HistoryFetchRequest.size),
                                                          on: control, what: "the history fetch", during: .history) else { return nil }
            let announced = try connection.decode(fetchBytes, as: HistoryFetchResponse.self, what: "history fetch")
            let historyChanged = cursor.map { $0.historyID != announced.historyID } ?? false
            if announced.status == .cursorAhead || historyChanged {
                // Another band, or this band's flash was wiped: the stored cursor means nothing here.
                guard !restartedFromZero else {
                    throw .controlPointProtocol("the band rejects cursor 0 of history \(announced.historyID) (\(announced.status))")
                }
                restartedFromZero = true
                report(.anomaly("history \(String(announced.historyID, radix: 16)) is not the one the cursor was saved for; starting again from its oldest record"))
                if announced.status == .success {
                    // A transfer from the stale cursor follows; let it finish unused.
                    guard try receiveTransfer(announced, on: control) != nil else { return nil }
                }
                cursor = HistoryCursor(historyID: announced.historyID, nextSequence: 0)
                continue
            }
            guard announced.status == .success else {
                throw .controlPointProtocol("history fetch refused: \(announced.status)")
            }
            guard announced.recordSize == UInt8(MinuteRecord.size) else {
                throw .controlPointProtocol("history records of \(announced.recordSize) bytes; this reader understands \(MinuteRecord.size)")
            }
            report(.historyTransferStarted(firstSequence: announced.firstSequence, count: announced.count, gap: announced.gap))
            guard let outcome = try receiveTransfer(announced, on: control) else { return nil }
            switch outcome {
            case .failure(let error):
                failures += 1
                report(.historyDiscarded(error.description))
                if failures >= maximumConsecutiveFailures { throw .historyRejected(error) }
                continue
            case .success(let verified):
                failures = 0
                let next = HistoryCursor(historyID: announced.historyID, nextSequence: announced.endSequence,
                                         lastMinute: verified.records.last?.minuteStart ?? cursor?.lastMinute)
                if !verified.records.isEmpty || next != cursor {
                    do { try writer.commitHistory(verified.records, cursor: next, previous: cursor) } catch { throw .store("\(error)") }
                }
                cursor = next
                stored += verified.records.count
                var acknowledged = false
                if announced.count > 0 {
                    let ack = HistoryAcknowledgeRequest(endSequence: announced.endSequence, crc: verified.checksum)
                    guard let ackBytes = try connection.request(ack.encodedBytes(capacity: HistoryAcknowledgeRequest.size),
                                                                on: control, what: "the history acknowledgement", during: .history) else { return nil }
                    let response = try connection.decode(ackBytes, as: HistoryAcknowledgeResponse.self, what: "history acknowledgement")
                    acknowledged = response.status == .success
                    if !acknowledged {
                        // Stored anyway; the band keeps the records and the cursor skips them.
                        report(.anomaly("the band did not accept the acknowledgement: \(response.status)"))
                    }
                }
                report(.historyCommitted(minutes: verified.records.count, cursor: next, acknowledged: acknowledged))
                if announced.count < UInt32(sliceSize) {
                    report(.historyComplete(minutes: stored))
                    return stored
                }
            }
        }
    }

    /// Collects one transfer until the band's Transfer Complete; nil on a stop request.
    private func receiveTransfer(_ announced: HistoryFetchResponse, on control: GATTCharacteristic) throws(SessionError) -> Result<HistoryTransfer, HistoryTransferError>? {
        transfer = HistoryTransfer(announced: announced)
        transferFailure = nil
        lastProgress = 0
        defer { transfer = nil }
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
        if let transferFailure { return .failure(transferFailure) }
        guard let transfer else { return .failure(.bandAborted(complete.status)) }
        do { try transfer.verify(complete) } catch { return .failure(error) }
        return .success(transfer)
    }

    private func receiveData(_ value: UnsafeRawBufferPointer) {
        guard transferFailure == nil, transfer != nil else { return }
        do {
            try transfer!.receive(value)
            let received = transfer!.records.count
            let total = Int(transfer!.announced.count)
            if received == total || received - lastProgress >= 240 {
                lastProgress = received
                report(.historyProgress(received: received, of: total))
            }
        } catch {
            transferFailure = error
        }
    }
}
