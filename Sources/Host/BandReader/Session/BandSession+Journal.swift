/// Every live reading on disk as it arrives (``LiveJournal``), until the store or the spool has it.
extension BandSession {
    /// What the last notification changed — the open minute, a step gap, a battery level — to the
    /// journal in one write. Called by the live stream before it reports the reading.
    func journalReceived() {
        guard let journal, let live else { return }
        let pending = live.uncommitted
        var entries: [SpoolEntry] = []
        if let open = pending.minutes.last, open.start == live.aggregator.current?.start, open != state.journaledMinute {
            entries.append(.minute(open))
            state.journaledMinute = open
        }
        if pending.gaps.count > state.journaledGaps { entries += pending.gaps[state.journaledGaps...].map(SpoolEntry.stepGap) }
        state.journaledGaps = pending.gaps.count
        let battery = Self.spoolEntries([], gaps: [], battery: pending.battery).first
        if let battery, battery != state.journaledBattery { entries.append(battery) }
        state.journaledBattery = battery
        do { try journal.append(entries) } catch { journalFailed(error) }
    }

    /// What the session received is committed or spooled: the journal keeps only what the
    /// stream still holds (usually the open minute), or goes.
    func journalCommitted() {
        guard let journal else { return }
        var entries: [SpoolEntry] = []
        state.journaledMinute = nil
        state.journaledGaps = 0
        state.journaledBattery = nil
        if let pending = live?.uncommitted {
            entries = Self.spoolEntries(pending.minutes, gaps: pending.gaps, battery: pending.battery)
            state.journaledMinute = pending.minutes.last
            state.journaledGaps = pending.gaps.count
            state.journaledBattery = Self.spoolEntries([], gaps: [], battery: pending.battery).first
        }
        do { try journal.replace(with: entries) } catch { journalFailed(error) }
    }

    /// What an earlier run left in the journal (it was killed) goes into the spool first, which
    /// replays it before anything else is written.
    func drainJournal() throws(SessionError) {
        guard let journal else { return }
        do {
            let (moved, appended) = try journal.drain()
            if !moved.isClean { report(.anomaly(Self.damageReport(moved, path: journal.path))) }
            if appended.dropped > 0 {
                report(.anomaly("journal \(journal.path): the spool is full; \(appended.dropped) of \(moved.entries.count) entries not kept"))
            }
        } catch { throw .store(StoreFailure(.spool, error)) }
    }

    /// A journal that cannot be written is reported once per run; the readings stay in memory
    /// and reach the store as before, only not safe from a kill.
    private func journalFailed(_ error: LiveSpool.SpoolError) {
        guard !state.journalFailed else { return }
        state.journalFailed = true
        report(.anomaly("\(error); live readings are not safe from a kill until the next connection"))
    }
}
