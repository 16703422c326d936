import BandLEHost
import BandWire

/// The chip's ``LEBondStore``: the bonds in RAM for the host's look-ups (an LE Long Term Key
/// Request is answered without touching flash) and in flash pages through ``FlashBondLog`` for
/// resets. It owns the board while the host runs, since writing flash is part of saving a bond.
///
/// Four bonds, oldest first. Saving a bond for a peer already bonded replaces it (and makes it
/// the newest); a fifth peer takes the place of the oldest, as NimBLE's store does when full,
/// so a band never refuses a new phone for want of room.
public struct ChipBondStore<B: Board>: LEBondStore {
    public var board: B
    private var log: FlashBondLog
    private var table = InlineArray<4, LEBond?>(repeating: nil)   // FlashBondLog.capacity
    public private(set) var count = 0

    /// Reads the bonds back from the board's flash.
    public init(board: B) {
        self.board = board
        log = FlashBondLog(pageSize: board.flashPageSize)
        var found = InlineArray<4, LEBond?>(repeating: nil)
        var count = 0
        log.recover(on: &self.board) { bond in
            guard count < FlashBondLog.capacity else { return }
            found[count] = bond
            count += 1
        }
        table = found
        self.count = count
    }

    /// Slots of the flash log found damaged at start-up.
    public var damagedSlots: UInt32 { log.damagedSlots }

    public func bond(with peer: LEAddress) -> LEBond? {
        for index in 0..<count where table[index]?.peer == peer { return table[index] }
        return nil
    }

    /// The bond at `index`, oldest first.
    public func bond(at index: Int) -> LEBond? { index < count ? table[index] : nil }

    public mutating func save(_ bond: LEBond) -> Bool {
        var next = InlineArray<4, LEBond>(repeating: bond)
        var nextCount = 0
        for index in 0..<count {
            guard let kept = table[index], kept.peer != bond.peer else { continue }
            next[nextCount] = kept
            nextCount += 1
        }
        if nextCount == FlashBondLog.capacity {   // full: the oldest makes room
            for index in 1..<FlashBondLog.capacity { next[index - 1] = next[index] }
            nextCount -= 1
        }
        next[nextCount] = bond
        nextCount += 1
        let written = next.span.withUnsafeBufferPointer { all in
            log.write(UnsafeBufferPointer(rebasing: all[0..<nextCount]), on: &board)
        }
        guard written else { return false }
        for index in 0..<FlashBondLog.capacity { table[index] = index < nextCount ? next[index] : nil }
        count = nextCount
        return true
    }
}
