/// An append-only log of whole records in two flash pages: the bond log (``FlashBondLog``) and
/// the band's state log (BandFirmwareCore's `FlashStateLog`) are each one, with their own record
/// layout and slot size.
///
/// Each write appends one record to the next free slot (a ``FlashSlot``: the write sequence in
/// its first word, a CRC-32 in its last); when the page is full the other page is erased and the
/// log goes on there. The valid record with the highest sequence is the current one, so a reset
/// in the middle of a write (or of the erase) leaves the one before: nothing older is touched
/// before a newer record is in place. Damaged slots are counted (``damagedSlots``) and skipped,
/// never a trap. A board with fewer flash pages than the log's holds no record and takes none.
package struct FlashRecordLog {
    /// The largest slot a log may have (the state log's).
    package static let largestSlot = 144

    package let pages: Range<Int>
    package let slotByteCount: Int
    package let slotsPerPage: Int
    private var writePage: Int?
    private var writeSlot = 0
    private var sequence: UInt32 = 0
    /// Slots found neither erased nor valid at recovery.
    package private(set) var damagedSlots: UInt32 = 0

    /// A log in the first two of `pages`, in slots of `slotByteCount` bytes (at most
    /// ``largestSlot``) on pages of `pageSize` bytes.
    package init(pages: Range<Int>, slotByteCount: Int, pageSize: Int) {
        self.pages = pages
        self.slotByteCount = slotByteCount
        slotsPerPage = pageSize / slotByteCount
    }

    /// Finds the newest valid record and where the next one goes, then calls `newest` with that
    /// record's bytes (not at all when there is none). Call at start-up.
    package mutating func recover<B: Board>(on board: inout B, _ newest: (UnsafeRawBufferPointer) -> Void) {
        var found: (page: Int, slot: Int, sequence: UInt32)?
        var lastUsed = InlineArray<2, Int>(repeating: 0)   // per page: the slot after the last non-erased one
        var damaged: UInt32 = 0
        for page in 0..<min(pages.count, 2) {
            forEachSlot(page, on: &board) { slot, bytes in
                switch FlashSlot.state(of: bytes) {
                case .erased: return
                case .damaged: damaged &+= 1
                case .valid:
                    let sequence = FlashSlot.word(bytes, 0)
                    if found == nil || sequence > found!.sequence { found = (page, slot, sequence) }
                }
                lastUsed[page] = slot + 1
            }
        }
        damagedSlots = damaged
        guard let found else {
            writePage = nil
            writeSlot = 0
            sequence = 0
            return
        }
        writePage = found.page
        writeSlot = lastUsed[found.page]
        sequence = found.sequence
        forEachSlot(found.page, on: &board) { slot, bytes in
            if slot == found.slot { newest(bytes) }
        }
    }

    /// Appends a record: `fill` writes its content into the slot (all 0xFF at first) after the
    /// sequence word and before the CRC. Returns false when the board has no flash for it (fewer
    /// pages than the log's), true once the record is programmed.
    package mutating func append<B: Board>(on board: inout B, _ fill: (UnsafeMutableRawBufferPointer) -> Void) -> Bool {
        guard board.flashPageCount >= pages.upperBound, slotsPerPage > 0 else { return false }
        if writePage == nil || writeSlot >= slotsPerPage {
            let page = writePage.map { ($0 + 1) % 2 } ?? 0
            board.flashErase(page: pages.lowerBound + page)
            writePage = page
            writeSlot = 0
        }
        sequence &+= 1
        var slot = InlineArray<144, UInt8>(repeating: 0xFF)   // largestSlot
        var span = slot.mutableSpan
        span.withUnsafeMutableBytes { whole in
            let raw = UnsafeMutableRawBufferPointer(rebasing: whole[0..<slotByteCount])
            FlashSlot.put(sequence, into: raw, at: 0)
            fill(raw)
            FlashSlot.seal(raw)
            board.flashProgram(page: pages.lowerBound + writePage!, offset: writeSlot * slotByteCount, UnsafeRawBufferPointer(raw))
        }
        writeSlot += 1
        return true
    }

    private func forEachSlot<B: Board>(_ page: Int, on board: inout B, _ body: (Int, UnsafeRawBufferPointer) -> Void) {
        guard board.flashPageCount >= pages.upperBound else { return }
        var slot = InlineArray<144, UInt8>(repeating: 0)   // largestSlot
        var span = slot.mutableSpan
        span.withUnsafeMutableBytes { whole in
            let raw = UnsafeMutableRawBufferPointer(rebasing: whole[0..<slotByteCount])
            for index in 0..<slotsPerPage {
                board.flashRead(page: pages.lowerBound + page, offset: index * slotByteCount, into: raw)
                body(index, UnsafeRawBufferPointer(raw))
            }
        }
    }
}
