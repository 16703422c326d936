import BandLEHost
import BandWire

/// The BLE host's bonds in flash pages (``FlashLayout/bondPages``), so a central that paired
/// encrypts again after a reset without a new passkey.
///
/// Each change appends the whole bond table as one 108-byte record to the next free slot; when a
/// page is full the other page is erased and the log goes on there. The valid record with the
/// highest sequence is the table, so a reset in the middle of a write (or of the erase) leaves
/// the table as it was before: nothing older is touched before a newer record is in place.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 4 | write sequence, uint32 LE (the highest valid one is the table) |
/// | 4 | 1 | bond count b (≤ 4) |
/// | 5 | 3 | 0xFF |
/// | 8 | 24 × 4 | bonds, b used: address 6 (wire order), address type 1, flags 1 (bit 0 authenticated), LTK 16 |
/// | 104 | 4 | CRC-32 (BandWire's) of bytes 0–103 |
///
/// Slots follow `FlashSlot`'s rules (erased, valid, damaged); damage is counted in
/// ``damagedSlots`` and skipped, never a trap. A bond count over 4 keeps the first four.
public struct FlashBondLog {
    public static let slotByteCount = 108
    /// Bonds a record holds: a band has a phone and perhaps a second reader.
    public static let capacity = 4
    static let bondByteCount = 24

    let pages: Range<Int>
    let slotsPerPage: Int
    private var writePage: Int?
    private var writeSlot = 0
    private var sequence: UInt32 = 0
    /// Slots found neither erased nor valid at recovery.
    public private(set) var damagedSlots: UInt32 = 0

    public init(pages: Range<Int> = FlashLayout.bondPages, pageSize: Int) {
        self.pages = pages
        slotsPerPage = pageSize / Self.slotByteCount
    }

    /// Finds the newest valid record and where the next one goes; calls `found` with each bond
    /// it holds, in order. Call at start-up.
    public mutating func recover<B: Board>(on board: inout B, _ found: (LEBond) -> Void) {
        var newest: (page: Int, slot: Int, sequence: UInt32)?
        var lastUsed = InlineArray<2, Int>(repeating: 0)   // per page: the slot after the last non-erased one
        var damaged: UInt32 = 0
        for page in 0..<min(pages.count, 2) {
            Self.forEachSlot(pages, slotsPerPage, page, on: &board) { slot, bytes in
                switch FlashSlot.state(of: bytes) {
                case .erased: return
                case .damaged: damaged &+= 1
                case .valid:
                    let sequence = FlashSlot.word(bytes, 0)
                    if newest == nil || sequence > newest!.sequence { newest = (page, slot, sequence) }
                }
                lastUsed[page] = slot + 1
            }
        }
        damagedSlots = damaged
        guard let newest else {
            writePage = nil
            writeSlot = 0
            sequence = 0
            return
        }
        writePage = newest.page
        writeSlot = lastUsed[newest.page]
        sequence = newest.sequence
        Self.forEachSlot(pages, slotsPerPage, newest.page, on: &board) { slot, bytes in
            guard slot == newest.slot else { return }
            for index in 0..<min(Int(bytes[4]), Self.capacity) { found(Self.decodeBond(bytes, at: 8 + index * Self.bondByteCount)) }
        }
    }

    /// Appends `bonds` (at most ``capacity``) as the newest record. Returns false when the board
    /// has no flash for it (fewer pages than the layout), true once the record is programmed.
    public mutating func write<B: Board>(_ bonds: UnsafeBufferPointer<LEBond>, on board: inout B) -> Bool {
        guard board.flashPageCount >= pages.upperBound, slotsPerPage > 0 else { return false }
        if writePage == nil || writeSlot >= slotsPerPage {
            let page = writePage.map { ($0 + 1) % 2 } ?? 0
            board.flashErase(page: pages.lowerBound + page)
            writePage = page
            writeSlot = 0
        }
        sequence &+= 1
        var slot = InlineArray<108, UInt8>(repeating: 0xFF)   // slotByteCount
        var span = slot.mutableSpan
        span.withUnsafeMutableBytes { raw in
            FlashSlot.put(sequence, into: raw, at: 0)
            let count = min(bonds.count, Self.capacity)
            raw[4] = UInt8(count)
            for index in 0..<count { Self.encode(bonds[index], into: raw, at: 8 + index * Self.bondByteCount) }
            FlashSlot.seal(raw)
            board.flashProgram(page: pages.lowerBound + writePage!, offset: writeSlot * Self.slotByteCount, UnsafeRawBufferPointer(raw))
        }
        writeSlot += 1
        return true
    }

    // MARK: Record bytes

    static func encode(_ bond: LEBond, into raw: UnsafeMutableRawBufferPointer, at base: Int) {
        let address = bond.peer.address.value
        for byte in 0..<6 { raw[base + byte] = UInt8(truncatingIfNeeded: address >> UInt64(8 * byte)) }
        raw[base + 6] = bond.peer.type.rawValue
        raw[base + 7] = bond.authenticated ? 0x01 : 0x00
        for byte in 0..<16 { raw[base + 8 + byte] = byte < bond.longTermKey.count ? bond.longTermKey[byte] : 0 }
    }

    static func decodeBond(_ bytes: UnsafeRawBufferPointer, at base: Int) -> LEBond {
        var address: UInt64 = 0
        for byte in 0..<6 { address |= UInt64(bytes[base + byte]) << UInt64(8 * byte) }
        var key = FixedBytes<16>()
        for byte in 0..<16 { _ = key.append(bytes[base + 8 + byte]) }
        return LEBond(peer: LEAddress(BluetoothAddress(address), type: LEAddressType(rawValue: bytes[base + 6])),
                      longTermKey: key, authenticated: bytes[base + 7] & 0x01 != 0)
    }

    private static func forEachSlot<B: Board>(_ pages: Range<Int>, _ slotsPerPage: Int, _ page: Int, on board: inout B,
                                              _ body: (Int, UnsafeRawBufferPointer) -> Void) {
        guard board.flashPageCount >= pages.upperBound else { return }
        var slot = InlineArray<108, UInt8>(repeating: 0)   // slotByteCount
        var span = slot.mutableSpan
        span.withUnsafeMutableBytes { raw in
            for index in 0..<slotsPerPage {
                board.flashRead(page: pages.lowerBound + page, offset: index * slotByteCount, into: raw)
                body(index, UnsafeRawBufferPointer(raw))
            }
        }
    }
}
