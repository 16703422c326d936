import BandATT
import BandProtocol
import BandWire

/// The History Control Point and History Data: fetch since a cursor, sequence-numbered data
/// packets sized to the MTU, CRC-32 per transfer, and erase only on a matching acknowledgement.
extension BandServices {
    /// Data packets sent per turn of the event loop, so requests keep being answered during a
    /// long transfer (a firmware fills its few radio buffers per connection event the same way).
    static var packetsPerTurn: Int { 8 }

    func handleHistoryRequest(_ request: HistoryRequest) {
        guard let current = connection else { return }
        switch request {
        case .fetch(let fetch):
            // Read in place: a copy of the ring alive across a later erase would copy its slots.
            let oldest = core.flash.ring.oldest, next = core.flash.ring.next, stored = UInt32(core.flash.ring.count)
            if fetch.cursor > next {
                host.report(.fetchAhead(connection: current.number, cursor: fetch.cursor, next: next))
                let historyID = core.flash.historyID
                indicate(.historyControlPoint) {
                    HistoryFetchResponse(status: .cursorAhead, historyID: historyID, firstSequence: oldest,
                                         count: stored, gap: 0).encode(into: &$0)
                }
                return
            }
            let first = max(fetch.cursor, oldest)
            let gap = first - fetch.cursor
            let available = next - first
            let count = fetch.maxCount == 0 ? available : min(available, UInt32(fetch.maxCount))
            var transfer = HistoryTransfer(first: first, count: count)
            let perPacket = UInt32(HistoryDataPacket.recordCapacity(mtu: current.mtu))
            let packets = (count + perPacket - 1) / perPacket
            if faults.disconnectMidHistory, packets >= 2 {
                faults.disconnectMidHistory = false
                transfer.disconnectAfterPackets = packets / 2
            }
            current.transfer = transfer
            if gap > 0 { host.report(.fetchGap(connection: current.number, cursor: fetch.cursor, gap: gap)) }
            indicate(.historyControlPoint) {
                HistoryFetchResponse(status: .success, historyID: core.flash.historyID, firstSequence: first,
                                     count: count, gap: gap).encode(into: &$0)
            }
        case .acknowledge(let ack):
            let matches = current.lastCompletedTransfer.map { $0.end == ack.endSequence && $0.crc == ack.crc } ?? false
            if matches {
                // Per-reader positions: erase only what every paired reader acknowledged.
                if let reader = current.authenticatedReader { core.flash.keys.acknowledge(ack.endSequence, by: reader) }
                let erasable = min(core.flash.keys.erasableBefore(fallback: ack.endSequence), ack.endSequence)
                let before = core.flash.ring.oldest
                if erasable > before { core.flash.ring.erase(before: erasable) }
                host.flashChanged()
                host.report(.acknowledged(connection: current.number, end: ack.endSequence,
                                          erased: core.flash.ring.oldest - before, keptFrom: core.flash.ring.oldest))
            } else {
                host.report(.acknowledgementRefused(connection: current.number, end: ack.endSequence, crc: ack.crc))
            }
            indicate(.historyControlPoint) {
                HistoryAcknowledgeResponse(status: matches ? .success : .acknowledgementRejected,
                                           oldestSequence: core.flash.ring.oldest, nextSequence: core.flash.ring.next).encode(into: &$0)
            }
        case .abort:
            let transfer = current.transfer
            current.transfer = nil
            indicate(.historyControlPoint) {
                HistoryTransferComplete(status: .aborted, packetCount: transfer?.packets ?? 0,
                                        recordCount: transfer?.sent ?? 0, crc: transfer?.crc.value ?? 0).encode(into: &$0)
            }
        }
    }

    /// Sends the next packets of the transfer in progress; the last one is followed by Transfer Complete.
    public func continueTransfer() {
        var budget = Self.packetsPerTurn
        while budget > 0, let current = connection, var transfer = current.transfer, !current.awaitingConfirmation {
            budget -= 1
            if transfer.sent == transfer.count {
                current.transfer = nil
                current.lastCompletedTransfer = (transfer.first + transfer.count, transfer.crc.value)
                indicate(.historyControlPoint) {
                    HistoryTransferComplete(status: .success, packetCount: transfer.packets, recordCount: transfer.count,
                                            crc: transfer.crc.value).encode(into: &$0)
                }
                return
            }
            let next = transfer.first + transfer.sent
            guard core.flash.ring.contains(next) else {
                // Overflow overwrote records this transfer had not sent yet: stop rather than
                // skip them; the reader fetches again and is told the gap.
                host.report(.overwrittenDuringTransfer(connection: current.number, from: next))
                current.transfer = nil
                indicate(.historyControlPoint) {
                    HistoryTransferComplete(status: .aborted, packetCount: transfer.packets, recordCount: transfer.sent,
                                            crc: transfer.crc.value).encode(into: &$0)
                }
                return
            }
            // A full link means "later", never a lost packet: the event loop waits for room.
            guard host.canSendWithoutBlocking() else { return }
            let perPacket = UInt32(HistoryDataPacket.recordCapacity(mtu: current.mtu))
            let inPacket = min(perPacket, transfer.count - transfer.sent)
            let packetNumber = transfer.packetNumber
            let ring = core.flash.ring
            var crc = transfer.crc
            let alive = notify(.historyData) { writer in
                writer.writeUInt16LE(packetNumber)
                for i in 0..<inPacket {
                    ring.withRecordBytes(next + i) { record in
                        crc.update(record)
                        writer.writeBytes(record)
                    }
                }
            }
            transfer.crc = crc
            transfer.sent += inPacket
            transfer.packets += 1
            transfer.packetNumber &+= 1
            guard alive, let stillCurrent = connection, stillCurrent === current else { return }
            current.transfer = transfer
            if let limit = transfer.disconnectAfterPackets, transfer.packets >= limit {
                disconnect(.faultMidHistory(packets: transfer.packets))
                return
            }
        }
    }
}
