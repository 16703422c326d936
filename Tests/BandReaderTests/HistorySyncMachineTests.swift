import BandProtocol
import BandReader
import BandWire
import Testing

/// The history sync decisions as scripted conversations: what the band says (and "commit
/// finished") in, the machine's actions out, without a link, a store or a thread.
@Suite struct HistorySyncMachineTests {
    static let start: UInt32 = 1_796_032_800

    enum Say {
        case fetch(HistoryFetchResponse)
        case data([UInt8])
        case complete(HistoryTransferComplete)
        case committed
        case ack(HistoryAcknowledgeResponse)
    }

    static func records(_ count: Int, from first: Int = 0) -> [MinuteRecord] {
        (first..<first + count).map { i in
            MinuteRecord(minuteStart: start + UInt32(i) * 60, utcOffset: .utc, flags: [.worn], steps: UInt16(i),
                         distanceDecimetres: 0, energyDecikilocalories: 0, heartRate: nil)
        }
    }

    static func crc(_ records: [MinuteRecord]) -> UInt32 {
        var crc = CRC32()
        for record in records { crc.update(record.encodedBytes()) }
        return crc.value
    }

    static func announce(_ count: UInt32, first: UInt32, id: UInt32 = 7, status: HistoryStatus = .success) -> Say {
        .fetch(HistoryFetchResponse(status: status, historyID: id, firstSequence: first, count: count, gap: 0))
    }

    static func packet(_ number: UInt16, _ records: [MinuteRecord]) -> Say {
        .data(HistoryDataPacket(packetNumber: number, records: records).encodedBytes())
    }

    static func complete(_ records: [MinuteRecord], packets: UInt32 = 1, crc: UInt32? = nil) -> Say {
        .complete(HistoryTransferComplete(status: .success, packetCount: packets, recordCount: UInt32(records.count),
                                          crc: crc ?? Self.crc(records)))
    }

    static let accepted = Say.ack(HistoryAcknowledgeResponse(status: .success, oldestSequence: 0, nextSequence: 0))

    /// One action as a short line, so a conversation reads as a table.
    static func line(_ action: HistorySyncMachine.Action) -> String {
        switch action {
        case .sendFetch(let request): return "fetch \(request.cursor)"
        case .awaitTransfer: return "await transfer"
        case .commit(let records, let cursor, let previous, _):
            return "commit \(records.count) → \(cursor.nextSequence) after \(previous.map { String($0.nextSequence) } ?? "none")"
        case .sendAcknowledge(let ack): return "ack \(ack.endSequence)"
        case .finished(let minutes): return "finished \(minutes)"
        case .fail(let error): return "fail: \(error)"
        case .report(let event):
            switch event {
            case .historyTransferStarted(let first, let count, _): return "started \(first)+\(count)"
            case .historyProgress(let received, let total): return "progress \(received)/\(total)"
            case .historyCommitted(let minutes, let cursor, let acknowledged):
                return "committed \(minutes) at \(cursor.nextSequence)" + (acknowledged ? " acknowledged" : "")
            case .historyDiscarded(let why): return "discarded: \(why)"
            case .historyComplete(let minutes): return "complete \(minutes)"
            case .anomaly(let what): return "anomaly: \(what)"
            default: return "\(event)"
            }
        }
    }

    /// Plays `script` (what the band says, and the lines expected after each) against a machine.
    func converse(_ machine: inout HistorySyncMachine, start expected: [String]? = nil, _ script: [(Say, [String])],
                  sourceLocation: SourceLocation = #_sourceLocation) {
        if let expected { #expect(machine.start().map(Self.line) == expected, sourceLocation: sourceLocation) }
        for (index, (say, expected)) in script.enumerated() {
            let actions: [HistorySyncMachine.Action]
            switch say {
            case .fetch(let response): actions = machine.fetchAnswered(response)
            case .data(let bytes): actions = bytes.withUnsafeBytes { machine.dataReceived($0) }.map { [.report($0)] } ?? []
            case .complete(let complete): actions = machine.transferCompleted(complete)
            case .committed: actions = machine.commitFinished()
            case .ack(let response): actions = machine.acknowledged(response)
            }
            #expect(actions.map(Self.line) == expected, "step \(index)", sourceLocation: sourceLocation)
        }
    }

    @Test func twoSlicesAreFetchedVerifiedCommittedThenAcknowledged() {
        let first = Self.records(3), second = Self.records(1, from: 3)
        var machine = HistorySyncMachine(cursor: nil, mode: .driving)
        machine.sliceSize = 3
        converse(&machine, start: ["fetch 0"], [
            (Self.announce(3, first: 0), ["started 0+3", "await transfer"]),
            (Self.packet(0, first), ["progress 3/3"]),
            (Self.complete(first), ["commit 3 → 3 after none"]),
            (.committed, ["ack 3"]),
            (Self.accepted, ["committed 3 at 3 acknowledged", "fetch 3"]),
            (Self.announce(1, first: 3), ["started 3+1", "await transfer"]),
            (Self.packet(0, second), ["progress 1/1"]),
            (Self.complete(second), ["commit 1 → 4 after 3"]),
            (.committed, ["ack 4"]),
            (Self.accepted, ["committed 1 at 4 acknowledged", "complete 4", "finished 4"]),
        ])
        #expect(machine.cursor?.nextSequence == 4)
        #expect(machine.cursor?.lastMinute == Self.start + 3 * 60)
    }

    @Test func nothingNewIsNeitherCommittedNorAcknowledged() {
        var machine = HistorySyncMachine(cursor: HistoryCursor(historyID: 7, nextSequence: 9), mode: .driving)
        converse(&machine, start: ["fetch 9"], [
            (Self.announce(0, first: 9), ["started 9+0", "await transfer"]),
            (Self.complete([], packets: 0), ["committed 0 at 9", "complete 0", "finished 0"]),
        ])
    }

    @Test func damagedTransfersAreFetchedAgainFromTheSameCursorThenGivenUp() {
        let records = Self.records(2)
        var machine = HistorySyncMachine(cursor: HistoryCursor(historyID: 7, nextSequence: 0), mode: .driving)
        machine.maximumConsecutiveFailures = 2
        let crcWrong = "discarded: CRC-32 mismatch: band 0x1, received data 0x\(String(Self.crc(records), radix: 16))"
        converse(&machine, start: ["fetch 0"], [
            (Self.announce(2, first: 0), ["started 0+2", "await transfer"]),
            (Self.packet(0, records), ["progress 2/2"]),
            (Self.complete(records, crc: 1), [crcWrong, "fetch 0"]),
            (Self.announce(2, first: 0), ["started 0+2", "await transfer"]),
            (Self.packet(1, records), []),    // packet 0 lost
            (Self.complete(records), ["discarded: history data packet 1 arrived where 0 was due (a notification was lost)",
                                      "fail: history transfer rejected: history data packet 1 arrived where 0 was due (a notification was lost)"]),
        ])
        #expect(machine.cursor?.nextSequence == 0)
    }

    @Test func anotherHistoryRestartsFromZeroOnceLettingTheStaleTransferFinishUnused() {
        let stale = Self.records(1, from: 50)
        var machine = HistorySyncMachine(cursor: HistoryCursor(historyID: 5, nextSequence: 50), mode: .driving)
        converse(&machine, start: ["fetch 50"], [
            (Self.announce(1, first: 50, id: 9), ["anomaly: history 9 is not the one the cursor was saved for; starting again from its oldest record",
                                                  "await transfer"]),
            (Self.packet(0, stale), ["progress 1/1"]),
            (Self.complete(stale), ["fetch 0"]),
            (Self.announce(0, first: 0, id: 10, status: .cursorAhead),
             ["fail: band protocol error: the band rejects cursor 0 of history 10 (\(HistoryStatus.cursorAhead))"]),
        ])
    }

    @Test func refusedAcknowledgementKeepsTheRecordsStoredAndSaysSo() {
        let records = Self.records(1)
        var machine = HistorySyncMachine(cursor: nil, mode: .driving)
        converse(&machine, start: ["fetch 0"], [
            (Self.announce(1, first: 0), ["started 0+1", "await transfer"]),
            (Self.packet(0, records), ["progress 1/1"]),
            (Self.complete(records), ["commit 1 → 1 after none"]),
            (.committed, ["ack 1"]),
            (.ack(HistoryAcknowledgeResponse(status: .acknowledgementRejected, oldestSequence: 0, nextSequence: 1)),
             ["anomaly: the band did not accept the acknowledgement: \(HistoryStatus.acknowledgementRejected)", "committed 1 at 1", "complete 1", "finished 1"]),
        ])
    }

    @Test func refusedFetchAndForeignRecordSizeAreProtocolErrorsWhenDriving() {
        var refused = HistorySyncMachine(cursor: nil, mode: .driving)
        converse(&refused, [(Self.announce(0, first: 0, status: .aborted), ["fail: band protocol error: history fetch refused: \(HistoryStatus.aborted)"])])
        var foreign = HistorySyncMachine(cursor: nil, mode: .driving)
        converse(&foreign, [(.fetch(HistoryFetchResponse(status: .success, recordSize: 20, historyID: 7, firstSequence: 0, count: 1, gap: 0)),
                             ["fail: band protocol error: history records of 20 bytes; this reader understands 16"])])
    }

    // MARK: Following a recording

    @Test func followingNeverSendsNeverFailsAndNeverMovesTheCursorBack() {
        let older = Self.records(2)
        var machine = HistorySyncMachine(cursor: HistoryCursor(historyID: 7, nextSequence: 10, lastMinute: 99), mode: .following)
        converse(&machine, [
            // A refused fetch and its Transfer Complete: nothing to use.
            (Self.announce(0, first: 0, status: .aborted), []),
            (Self.complete([], packets: 0), []),
            // An older part of the same history: stored, the cursor stays at 10.
            (Self.announce(2, first: 0), ["started 0+2", "await transfer"]),
            (Self.packet(0, older), []),
            (Self.complete(older), ["commit 2 → 10 after 10"]),
            (.committed, ["committed 2 at 10"]),
            // Damage is reported, never fatal, and nothing is fetched.
            (Self.announce(2, first: 10), ["started 10+2", "await transfer"]),
            (Self.complete(older, crc: 1), ["discarded: record count mismatch: announced 2, band says 2 sent, 0 received"]),
        ])
        #expect(machine.cursor?.nextSequence == 10)
        #expect(machine.cursor?.lastMinute == 99)
    }

    @Test func followingAnotherHistoryResetsTheCursorQuietly() {
        var machine = HistorySyncMachine(cursor: HistoryCursor(historyID: 5, nextSequence: 50), mode: .following)
        converse(&machine, [(Self.announce(1, first: 50, id: 9), ["await transfer"]),
                            (Self.complete(Self.records(1)), [])])
        #expect(machine.cursor == HistoryCursor(historyID: 9, nextSequence: 0))
    }
}
