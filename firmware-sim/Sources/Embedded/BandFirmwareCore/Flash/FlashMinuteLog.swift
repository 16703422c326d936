import BandProtocol
import BandWire
import ChipRuntime

/// The chip's minute ring in flash pages (``FlashLayout/ringPages``): every record the band
/// closes is programmed into the next free 24-byte slot, so the ring survives a firmware reset and
/// a host restart. The RAM ring (``MinuteRing``) the band reads from is rebuilt from here at start.
///
/// Slot layout (little-endian), 170 to a 4 KB page, pages used in turn:
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 4 | record sequence number |
/// | 4 | 16 | the minute record as stored (docs/protocol.md) |
/// | 20 | 4 | CRC-32 of bytes 0–19 |
///
/// **Why a reset never costs more than the record being written.** A page is erased only when the
/// ring moves onto it, and then holds only records older than the newest `capacity` (with 10 pages
/// of 170 slots the other nine hold 1,530 ≥ 1,440). A record is one program of one slot: cut
/// short, the slot fails its CRC and is skipped (counted), and the next record goes into the slot
/// after it under the same sequence number. An erase cut short leaves a page that is neither
/// erased nor valid; it is the oldest page, and it is erased again before anything is written to
/// it. Nothing on this path traps, whatever the flash holds.
///
/// **A slot whose CRC matches but whose record does not parse** (a minute start off the minute,
/// heart-rate bytes that contradict its flag…: bits the CRC-32 missed, or a writer's bug) is
/// damaged like one whose CRC fails — counted, skipped, the ring ends before it — so the band
/// never holds a record it could not decode or a reader could not store.
///
/// **Recovery** (``recover(on:)``, no allocation): the page holding the highest valid sequence
/// number is the newest; walking the pages from the one after it (the oldest) round to it visits
/// the records in the order they were written. The ring is the contiguous run of sequence numbers
/// that ends at the highest one: a damaged record in the middle ends the run before it (the
/// ring cannot have holes), so the loss is reported, never served.
public struct FlashMinuteLog {
    public static let slotByteCount = 24
    static let recordByteCount = 16

    let pages: Range<Int>
    let slotsPerPage: Int
    /// The page (index into `pages`) the last record went to, nil before the first.
    private var writePage: Int?
    /// The slot in `writePage` the next record goes to.
    private var writeSlot = 0
    /// The sequence number the next record gets.
    public private(set) var next: UInt32 = 0
    /// First of the contiguous run of valid records that ends before `next`.
    public private(set) var runStart: UInt32 = 0
    /// Slots found neither erased nor valid at recovery.
    public private(set) var damagedSlots: UInt32 = 0

    public init(pages: Range<Int> = FlashLayout.ringPages, pageSize: Int) {
        self.pages = pages
        slotsPerPage = pageSize / Self.slotByteCount
    }

    /// Records this flash holds for a ring of `capacity` whose readers acknowledged everything
    /// before `acknowledged`: the newest run, at most `capacity` long.
    public func oldest(capacity: Int, acknowledged: UInt32) -> UInt32 {
        var oldest = runStart
        if Int(next &- oldest) > capacity { oldest = next &- UInt32(capacity) }
        if acknowledged > oldest, acknowledged <= next { oldest = acknowledged }
        return oldest
    }

    /// Scans the pages: finds the write position, the next sequence number and the run.
    public mutating func recover<B: Board>(on board: inout B) {
        let (pages, slotsPerPage) = (self.pages, self.slotsPerPage)
        // Pass 1: the newest page is the one holding the highest sequence number.
        var highest: UInt32?
        var newest: Int?
        var damaged: UInt32 = 0
        for page in 0..<pages.count {
            Self.forEachSlot(pages, slotsPerPage, page, on: &board) { _, state, sequence, _ in
                if state == .damaged { damaged &+= 1 }
                if state == .valid, highest == nil || sequence > highest! {
                    highest = sequence
                    newest = page
                }
            }
        }
        damagedSlots = damaged
        writePage = newest
        writeSlot = 0
        guard let newest, let highest else {
            next = 0
            runStart = 0
            return
        }
        // Pass 2: oldest page to newest, the run ending at `highest`, and the write position.
        var runFirst: UInt32?
        var runLast: UInt32 = 0
        var slotAfterLast = 0
        for step in 1...pages.count {
            let page = (newest + step) % pages.count
            Self.forEachSlot(pages, slotsPerPage, page, on: &board) { slot, state, sequence, _ in
                if page == newest, state != .erased { slotAfterLast = slot + 1 }
                guard state == .valid else { return }
                if runFirst != nil, sequence == runLast &+ 1 {
                    runLast = sequence
                } else {
                    runFirst = sequence
                    runLast = sequence
                }
            }
        }
        writeSlot = slotAfterLast
        next = highest &+ 1
        runStart = runLast == highest ? (runFirst ?? next) : next
    }

    /// Calls `body` with every valid record in the order written (oldest page first).
    public func forEachRecord<B: Board>(on board: inout B, _ body: (UInt32, UnsafeRawBufferPointer) -> Void) {
        guard let newest = writePage else { return }
        for step in 1...pages.count {
            Self.forEachSlot(pages, slotsPerPage, (newest + step) % pages.count, on: &board) { _, state, sequence, record in
                if state == .valid { body(sequence, record) }
            }
        }
    }

    /// Programs record `sequence` (its 16 stored bytes) into the next free slot, erasing the next
    /// page first when the current one is full.
    public mutating func append<B: Board>(_ sequence: UInt32, _ record: UnsafeRawBufferPointer, on board: inout B) {
        if writePage == nil || writeSlot >= slotsPerPage {
            let page = writePage.map { ($0 + 1) % pages.count } ?? 0
            board.flashErase(page: pages.lowerBound + page)
            writePage = page
            writeSlot = 0
        }
        var slot = InlineArray<24, UInt8>(repeating: 0)   // slotByteCount
        var span = slot.mutableSpan
        span.withUnsafeMutableBytes { raw in
            FlashSlot.put(sequence, into: raw, at: 0)
            for index in 0..<Self.recordByteCount { raw[4 + index] = index < record.count ? record[index] : 0xFF }
            FlashSlot.seal(raw)
            board.flashProgram(page: pages.lowerBound + writePage!, offset: writeSlot * Self.slotByteCount, UnsafeRawBufferPointer(raw))
        }
        writeSlot += 1
        if sequence != next { runStart = sequence }   // not the next one: a new run starts here
        next = sequence &+ 1
    }

    private static func forEachSlot<B: Board>(_ pages: Range<Int>, _ slotsPerPage: Int, _ page: Int, on board: inout B,
                                       _ body: (Int, FlashSlot.State, UInt32, UnsafeRawBufferPointer) -> Void) {
        var slot = InlineArray<24, UInt8>(repeating: 0)   // slotByteCount
        var span = slot.mutableSpan
        span.withUnsafeMutableBytes { raw in
            for index in 0..<slotsPerPage {
                board.flashRead(page: pages.lowerBound + page, offset: index * Self.slotByteCount, into: raw)
                let bytes = UnsafeRawBufferPointer(raw)
                let record = UnsafeRawBufferPointer(rebasing: bytes[4..<4 + Self.recordByteCount])
                var state = FlashSlot.state(of: bytes)
                if state == .valid, !Self.parses(record) { state = .damaged }
                body(index, state, state == .valid ? FlashSlot.word(bytes, 0) : 0, record)
            }
        }
    }

    /// True when `record` is a minute record BandProtocol decodes (the reader's own check).
    static func parses(_ record: UnsafeRawBufferPointer) -> Bool {
        do throws(ParseError) {
            _ = try MinuteRecord(parsingAll: record)
            return true
        } catch {
            return false
        }
    }
}
