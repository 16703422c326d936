import BandGATT
import BandProtocol
import BandWire
import FoundationEssentials
import HealthModel

/// The reader's handling of one connection's traffic, fed from a recording instead of a link:
/// the seam `bandsim replay --into` drives.
///
/// Everything that decides what reaches the store is the live reader's own code —
/// ``LiveStream`` (Heart Rate, RSC, Battery and Live Activity notifications, counter deltas,
/// band-clock stamping, ``MinuteAggregator``), ``HistoryTransfer`` (packet, count and CRC
/// checks) and ``SampleWriter`` (samples, sync identifiers and versions, one transaction per
/// batch). What this type adds is only the part a link normally drives: the recorded time
/// becomes the reader's "now", and the control-point exchanges the live
/// ``BandSession`` performs for ``SessionMachine`` are followed from the recorded PDUs by the same
/// ``HistorySyncMachine`` it drives (in its following mode: the recorded requests are the
/// reader's, and nothing the band said fails the replay):
///
/// | recorded | what the live session did | here |
/// |---|---|---|
/// | clock reads / Current Time write | ``BandSession`` observes the band clock | the same observation, at the recorded times |
/// | clock reads after the first Current Time (while streaming) | the live stream takes the device's clock again | the same |
/// | live notifications | ``LiveStream/handle(_:_:)``; closed minutes written | the same, `now` = record time |
/// | history fetch response, data, Transfer Complete | ``HistorySyncMachine`` (driving, inside ``SessionMachine``) | the same machine (following), against the target store's cursor |
/// | fetch written after streaming began | ``LiveStream/finish()`` written before the final sync; the stream goes on during it | the same |
///
/// Events must come in recorded order. Not thread-safe.
public final class RecordedSessionFeed {
    public struct Outcome: Equatable, Sendable {
        public var liveMinutes = 0
        public var historyMinutes = 0
        public var historyTransfersDiscarded = 0
        public var samplesInserted = 0
        public var samplesReplaced = 0
        public var samplesUnchanged = 0
        public var samplesDeleted = 0
        public init() {}
    }

    public let profile: BandProfile
    public let writer: SampleWriter
    public let timeZone: any LocalTimeRules
    public private(set) var outcome = Outcome()
    private let report: (ReaderEvent) -> Void

    /// The recorded time of the event being handled: the reader's "now".
    private var currentTime = Date(timeIntervalSince1970: 0)
    private var live: LiveStream?
    private var pendingLive: [LiveMinute] = []
    private var liveStarted = false

    // Clock observation: the type BandSession.synchronizeClock feeds, fed from the recording.
    private var clock: ClockObservation
    /// A Current Time read again while streaming, in progress.
    private var reread: ClockObservation?

    // History: the live reader's own decisions, following the recorded conversation.
    private var history: HistorySyncMachine

    /// Writes are batched: this many closed live minutes, or any history commit, flush them.
    public var liveBatchSize = 1440

    public init(profile: BandProfile, writer: SampleWriter, timeZone: any LocalTimeRules = SystemTimeZone(),
                report: @escaping (ReaderEvent) -> Void = { _ in }) throws {
        self.profile = profile
        self.writer = writer
        self.timeZone = timeZone
        self.report = report
        history = HistorySyncMachine(cursor: try writer.cursor(), mode: .following)
        clock = ClockObservation(hasCurrentTime: profile.currentTime != nil)
    }

    // MARK: Events

    /// The reader sent a Read Request for `handle` at `time`.
    public func clientRead(handle: UInt16, at time: Date) {
        currentTime = time
        if handle == profile.localTimeInformation?.valueHandle || handle == profile.currentTime?.valueHandle {
            // Once the connect-time Current Time was seen, a clock read is the stream's re-read.
            if clock.bandUTC != nil || clock.written != nil {
                if reread == nil { reread = ClockObservation(hasCurrentTime: true) }
                reread!.readSent(at: time)
            } else {
                clock.readSent(at: time)
            }
        }
    }

    /// The band answered a read of `handle` with `value` (the first part of a long value).
    public func readResponse(handle: UInt16, value: UnsafeRawBufferPointer, at time: Date) {
        currentTime = time
        if var again = reread {
            // The session's re-read while streaming (``BandSession``): the same observation.
            if handle == profile.localTimeInformation?.valueHandle {
                again.zoneRead(value)
                reread = again
            } else if handle == profile.currentTime?.valueHandle {
                again.timeRead(value)
                reread = nil
                if let observation = again.observation(fallback: time) {
                    liveStream().observeDeviceClock(observation.bandTime, at: observation.hostTime,
                                                    utcOffsetSeconds: again.bandZone?.utcOffsetSeconds)
                }
            }
            return
        }
        if handle == profile.localTimeInformation?.valueHandle {
            clock.zoneRead(value)
        } else if handle == profile.currentTime?.valueHandle {
            clock.timeRead(value)
        }
    }

    /// The reader wrote `value` to `handle` (request or command).
    public func clientWrote(handle: UInt16, value: UnsafeRawBufferPointer, at time: Date) throws {
        currentTime = time
        if handle == profile.currentTime?.valueHandle {
            clock.timeWritten(at: time)
        } else if handle == profile.activity?.historyControlPoint.valueHandle, liveStarted,
                  (try? HistoryFetchRequest(parsingAll: value)) != nil {
            // The stream is over: the live session finishes its minutes before the final sync.
            try finishLive()
        }
    }

    /// The band notified or indicated `value` for `handle`.
    public func serverPushed(handle: UInt16, value: UnsafeRawBufferPointer, at time: Date) throws {
        currentTime = time
        if let activity = profile.activity {
            if handle == activity.historyData.valueHandle { return receiveHistoryData(value) }
            if handle == activity.historyControlPoint.valueHandle { return try historyResponse(value) }
        }
        let stream = liveStream()
        guard stream.handle(handle, value) else { return }
        liveStarted = true
        pendingLive += stream.takeClosedMinutes()
        if pendingLive.count >= liveBatchSize { try writePendingLive() }
    }

    /// The connection ended: the live session's last minute is written.
    public func finish() throws -> Outcome {
        try finishLive()
        return outcome
    }

    // MARK: Live

    private func liveStream() -> LiveStream {
        if let live { return live }
        let handles = LiveStream.Handles(profile: profile)
        let stream = LiveStream(handles: handles, now: { [unowned self] in currentTime },
                                hostOffset: { [unowned self] in timeZone.secondsFromGMT(for: currentTime) }, report: report)
        if let observation = clock.observation(fallback: currentTime) { stream.observeBandClock(observation.bandTime, at: observation.hostTime) }
        live = stream
        return stream
    }

    /// Writes the minute in progress. The stream itself goes on, as the live session's does:
    /// notifications recorded after a history fetch (the live session kept handling them during
    /// the sync) continue with the same clock, offset and RR state, in a new part of the minute.
    private func finishLive() throws {
        if let live { pendingLive += live.finish() }
        liveStarted = false
        try writePendingLive()
    }

    private func writePendingLive() throws {
        guard !pendingLive.isEmpty else { return }
        let write = try writer.writeLive(pendingLive)
        count(write)
        outcome.liveMinutes += pendingLive.count
        report(.liveMinutesStored(count: pendingLive.count))
        pendingLive.removeAll(keepingCapacity: true)
    }

    // MARK: History

    private func historyResponse(_ value: UnsafeRawBufferPointer) throws {
        guard let response = try? HistoryResponse(parsingAll: value) else {
            report(.anomaly("history response \(Hex.encode(value)) does not decode"))
            return
        }
        switch response {
        case .fetch(let announced): try perform(history.fetchAnswered(announced))
        case .transferComplete(let complete): try perform(history.transferCompleted(complete))
        // The recorded reader's acknowledgement changes nothing in the target store.
        case .acknowledge: break
        }
    }

    private func receiveHistoryData(_ value: UnsafeRawBufferPointer) {
        _ = history.dataReceived(value)
    }

    /// Carries out the machine's actions against the target store. Requests are not sent: the
    /// recording holds the ones the reader sent.
    private func perform(_ actions: [HistorySyncMachine.Action]) throws {
        var pending = actions[...]
        while let action = pending.popFirst() {
            switch action {
            case .commit(let records, let cursor, let previous, let first):
                try writePendingLive()
                let write = try writer.commitHistory(records, cursor: cursor, previous: previous, firstSequence: first)
                count(write)
                outcome.historyMinutes += records.count
                pending.insert(contentsOf: history.commitFinished(), at: pending.startIndex)
            case .report(let event):
                if case .historyDiscarded = event { outcome.historyTransfersDiscarded += 1 }
                report(event)
            case .sendFetch, .awaitTransfer, .sendAcknowledge, .finished, .fail:
                break
            }
        }
    }

    private func count(_ write: StoreWrite) {
        outcome.samplesInserted += write.inserted
        outcome.samplesReplaced += write.replaced
        outcome.samplesUnchanged += write.unchanged
        outcome.samplesDeleted += write.deleted
    }
}
