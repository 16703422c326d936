import BandProtocol
import BandWire
import ChipRuntime

/// The band's state that changes rarely, in flash pages (``FlashLayout/statePages``): the paired
/// readers' keys with their acknowledged positions (``KeyStore``) and the ring's acknowledged-through
/// position (records before it were erased by an acknowledgement and stay erased after a reset).
///
/// Each change appends one whole state record to the next free 144-byte slot (a ``FlashSlot``,
/// CRC-32 last); when the page is full the other page is erased and the log continues there. The
/// newest valid record wins, so a reset in the middle of a write (or of the erase) leaves the
/// previous state; nothing older is ever touched before a newer record is in place.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 4 | write sequence (the highest valid one is the state) |
/// | 4 | 4 | ring acknowledged through, uint32 LE |
/// | 8 | 1 | key count k (≤ 4) |
/// | 9 | 3 | 0xFF |
/// | 12 | 32 × 4 | key slots, k used: reader ID uint64 LE, key 16 bytes, last used uint32 LE, acknowledged position uint32 LE |
/// | 140 | 4 | CRC-32 of bytes 0–139 |
public struct FlashStateLog {
    public static let slotByteCount = 144
    static let keyByteCount = 32

    /// What a state record holds.
    public struct State: Equatable {
        public var acknowledgedThrough: UInt32 = 0
        public var keys: [KeyStore.Entry] = []
        public init(acknowledgedThrough: UInt32 = 0, keys: [KeyStore.Entry] = []) {
            self.acknowledgedThrough = acknowledgedThrough
            self.keys = keys
        }
    }

    let pages: Range<Int>
    let slotsPerPage: Int
    private var writePage: Int?
    private var writeSlot = 0
    private var sequence: UInt32 = 0
    /// Slots found neither erased nor valid at recovery.
    public private(set) var damagedSlots: UInt32 = 0

    public init(pages: Range<Int> = FlashLayout.statePages, pageSize: Int) {
        self.pages = pages
        slotsPerPage = pageSize / Self.slotByteCount
    }

    /// Finds the newest valid state record and where the next one goes; returns the state it
    /// holds (empty when there is none). Builds the key list: call it at start-up.
    public mutating func recover<B: Board>(on board: inout B) -> State {
        var newest: (page: Int, slot: Int, sequence: UInt32)?
        var lastUsed = InlineArray<2, Int>(repeating: 0)   // per page: the slot after the last non-erased one
        var damaged: UInt32 = 0
        for page in 0..<pages.count {
            Self.forEachSlot(pages, slotsPerPage, page, on: &board) { slot, state, bytes in
                if state != .erased, page < 2 { lastUsed[page] = slot + 1 }
                if state == .damaged { damaged &+= 1 }
                guard state == .valid else { return }
                let sequence = FlashSlot.word(bytes, 0)
                if newest == nil || sequence > newest!.sequence { newest = (page, slot, sequence) }
            }
        }
        damagedSlots = damaged
        guard let newest else {
            writePage = nil
            writeSlot = 0
            sequence = 0
            return State()
        }
        writePage = newest.page
        writeSlot = newest.page < 2 ? lastUsed[newest.page] : slotsPerPage
        sequence = newest.sequence
        var state = State()
        Self.forEachSlot(pages, slotsPerPage, newest.page, on: &board) { slot, _, bytes in
            if slot == newest.slot { state = Self.decode(bytes) }
        }
        return state
    }

    /// Appends `state` as the newest record.
    public mutating func write<B: Board>(_ state: State, on board: inout B) {
        if writePage == nil || writeSlot >= slotsPerPage {
            let page = writePage.map { ($0 + 1) % pages.count } ?? 0
            board.flashErase(page: pages.lowerBound + page)
            writePage = page
            writeSlot = 0
        }
        sequence &+= 1
        var slot = InlineArray<144, UInt8>(repeating: 0xFF)   // slotByteCount
        var span = slot.mutableSpan
        span.withUnsafeMutableBytes { raw in
            FlashSlot.put(sequence, into: raw, at: 0)
            FlashSlot.put(state.acknowledgedThrough, into: raw, at: 4)
            let count = min(state.keys.count, KeyStore.slotCount)
            raw[8] = UInt8(count)
            for index in 0..<count {
                let entry = state.keys[index]
                var writer = ByteWriter(UnsafeMutableRawBufferPointer(rebasing: raw[(12 + index * Self.keyByteCount)..<(12 + (index + 1) * Self.keyByteCount)]))
                writer.writeUInt64LE(entry.readerID)
                entry.key.write(to: &writer)
                writer.writeUInt32LE(entry.lastUsed)
                writer.writeUInt32LE(entry.acknowledged)
            }
            FlashSlot.seal(raw)
            board.flashProgram(page: pages.lowerBound + writePage!, offset: writeSlot * Self.slotByteCount, UnsafeRawBufferPointer(raw))
        }
        writeSlot += 1
    }

    /// A valid record's state. A key count over ``KeyStore/slotCount`` (a record this firmware
    /// never writes) keeps the first four.
    static func decode(_ bytes: UnsafeRawBufferPointer) -> State {
        var state = State(acknowledgedThrough: FlashSlot.word(bytes, 4))
        let count = min(Int(bytes[8]), KeyStore.slotCount)
        for index in 0..<count {
            let base = 12 + index * keyByteCount
            var readerID: UInt64 = 0
            for byte in 0..<8 { readerID |= UInt64(bytes[base + byte]) << UInt64(8 * byte) }
            let key = BandKey(UnsafeRawBufferPointer(rebasing: bytes[(base + 8)..<(base + 24)]))
            state.keys.append(KeyStore.Entry(readerID: readerID, key: key, lastUsed: FlashSlot.word(bytes, base + 24),
                                             acknowledged: FlashSlot.word(bytes, base + 28)))
        }
        return state
    }

    private static func forEachSlot<B: Board>(_ pages: Range<Int>, _ slotsPerPage: Int, _ page: Int, on board: inout B,
                                              _ body: (Int, FlashSlot.State, UnsafeRawBufferPointer) -> Void) {
        var slot = InlineArray<144, UInt8>(repeating: 0)   // slotByteCount
        var span = slot.mutableSpan
        span.withUnsafeMutableBytes { raw in
            for index in 0..<slotsPerPage {
                board.flashRead(page: pages.lowerBound + page, offset: index * slotByteCount, into: raw)
                body(index, FlashSlot.state(of: UnsafeRawBufferPointer(raw)), UnsafeRawBufferPointer(raw))
            }
        }
    }
}
