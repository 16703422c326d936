import FoundationEssentials
import HealthModel
import HealthStore

/// Live minutes to the store, and to the spool while the store is unreachable.
extension BandSession {
    /// Writes live minutes with the battery level and step gaps the stream holds; on failure
    /// keeps all of it in ``SessionRunState/unwritten`` for the spool.
    func write(_ minutes: [LiveMinute], from live: LiveStream?) throws(SessionError) {
        // The battery level is stored when it changes, with the minutes.
        let battery = live?.takeBatteryUpdate()
        let gaps = live?.takeStepGaps() ?? []
        guard !minutes.isEmpty || battery != nil || !gaps.isEmpty else { return }
        let writer: SampleWriter
        do { writer = try openedWriter() } catch {
            state.unwritten = Self.spoolEntries(minutes, gaps: gaps, battery: battery)
            throw error
        }
        let started = clock.now
        do {
            // A minute the band's history already covers is the band's record: a live minute
            // closed after that sync committed (a reading late in the transfer) must not add a
            // value the band did not record, as a spool's replay must not (writeSpooled).
            let covered = try writer.cursor()?.lastMinute
            let fresh = covered.map { last in minutes.filter { $0.start > last } } ?? minutes
            let written = try writer.writeLive(fresh, batteryPercent: battery?.percent, batteryTime: battery?.time, stepGaps: gaps)
            report(.storeWrite(StoreWriteTiming(batch: .live, rows: written.inserted + written.replaced, duration: clock.now - started)))
            journalCommitted()
        } catch {
            state.unwritten = Self.spoolEntries(minutes, gaps: gaps, battery: battery)
            throw .store(StoreFailure(.writeLive, error))
        }
    }

    /// Live minutes to the store; a failure goes to the machine, which decides (spool or end).
    func writeOrReport(_ minutes: [LiveMinute]) throws(SessionError) -> [SessionMachine.Action] {
        do { try write(minutes, from: live) } catch {
            // Without a spool a store failure ends the session, as before gateways spooled.
            guard spool != nil else { throw error }
            return machine.liveWriteFailed(error, at: clock.now)
        }
        return machine.liveWritten(minutes.count, at: clock.now)
    }

    /// Appends entries to the spool: (minutes kept, minutes dropped because it is full).
    func appendToSpool(_ entries: [SpoolEntry]) throws(SessionError) -> (kept: Int, dropped: Int) {
        guard let spool else {
            // No spool (a session made without one): the store's outage ends the session.
            throw .store(StoreFailure(.writeLive, HealthStoreError.misuse(machine.outcome.storeUnavailable ?? "the store is unreachable and there is no spool")))
        }
        let appended: LiveSpool.Appended
        do { appended = try spool.append(entries) } catch { throw .store(StoreFailure(.spool, error)) }
        journalCommitted()
        let minutes = entries.reduce(0) { if case .minute = $1 { $0 + 1 } else { $0 } }
        let kept = minutes - appended.droppedMinutes
        state.spooledMinutes += kept
        return (kept, appended.droppedMinutes)
    }

    /// The spool's entries for `minutes` with the battery level and step gaps the stream holds.
    func liveEntries(_ minutes: [LiveMinute]) -> [SpoolEntry] {
        let battery = live?.takeBatteryUpdate()
        let gaps = live?.takeStepGaps() ?? []
        return Self.spoolEntries(minutes, gaps: gaps, battery: battery)
    }

    static func spoolEntries(_ minutes: [LiveMinute], gaps: [StepGap], battery: (percent: Int, time: Date)?) -> [SpoolEntry] {
        minutes.map(SpoolEntry.minute) + gaps.map(SpoolEntry.stepGap)
            + (battery.map { [SpoolEntry.battery(percent: $0.percent, time: UInt32(clamping: Int64($0.time.timeIntervalSince1970)))] } ?? [])
    }

    /// Replays the spool through the live write path and removes it; with nothing spooled, tries
    /// the store with a read (the history cursor). Returns the minutes replayed.
    func replay(into writer: SampleWriter) throws(SessionError) -> Int {
        guard let spool else {
            do { _ = try writer.cursor() } catch { throw .store(StoreFailure(.readCursor, error)) }
            return 0
        }
        let contents: SpoolFile.Contents
        do {
            contents = try spool.replay { (contents) throws(HealthStoreError) in
                var minutes: [LiveMinute] = []
                var gaps: [StepGap] = []
                var battery: (percent: Int, time: UInt32)?
                for entry in contents.entries {
                    switch entry {
                    case .minute(let minute): minutes.append(minute)
                    case .stepGap(let gap): gaps.append(gap)
                    case .battery(let percent, let time): if battery.map({ $0.time <= time }) ?? true { battery = (percent, time) }
                    }
                }
                do {
                    if minutes.isEmpty, gaps.isEmpty, battery == nil {
                        _ = try writer.cursor()
                    } else {
                        try writer.writeSpooled(minutes, batteryPercent: battery?.percent,
                                                batteryTime: battery.map { Date(timeIntervalSince1970: TimeInterval($0.time)) }, stepGaps: gaps)
                    }
                } catch let error as HealthStoreError {
                    throw error
                } catch {
                    throw .misuse("\(error)")
                }
            }
        } catch {
            switch error {
            case .store(let failure): throw .store(StoreFailure(.writeLive, failure))
            case .spool(let failure): throw .store(StoreFailure(.spool, failure))
            }
        }
        if contents.entries.isEmpty, contents.isClean {
            // Nothing was spooled: the store is tried with a read.
            do { _ = try writer.cursor() } catch { throw .store(StoreFailure(.readCursor, error)) }
        }
        return contents.minuteCount
    }

    /// The anomaly line for a damaged spool.
    static func damageReport(_ contents: SpoolFile.Contents, path: String) -> String {
        var parts: [String] = []
        if contents.damagedStretches > 0 {
            parts.append("\(contents.damagedStretches) damaged stretch\(contents.damagedStretches == 1 ? "" : "es") (\(contents.damagedBytes) bytes) skipped")
        }
        if contents.tornTailBytes > 0 { parts.append("a torn last record (\(contents.tornTailBytes) bytes) left out") }
        let at = contents.firstDamageOffset.map { " from byte offset \($0)" } ?? ""
        return "spool \(path): " + parts.joined(separator: ", ") + at + "; \(contents.entries.count) intact entries kept"
    }

}
