import BandProtocol
import BandWire
import ChipRuntime

/// The band's state that changes rarely, in flash pages (``FlashLayout/statePages``): the paired
/// readers' keys with their acknowledged positions (``KeyStore``) and the ring's acknowledged-through
/// position (records before it were erased by an acknowledgement and stay erased after a reset).
///
/// Each change appends one whole state record to the next free 144-byte slot of a
/// `FlashRecordLog` (ChipRuntime: CRC-32 last, the other page erased when one is full, the newest
/// valid record wins), so a reset in the middle of a write (or of the erase) leaves the previous
/// state; nothing older is ever touched before a newer record is in place.
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

    private var log: FlashRecordLog
    /// Slots found neither erased nor valid at recovery.
    public var damagedSlots: UInt32 { log.damagedSlots }

    public init(pages: Range<Int> = FlashLayout.statePages, pageSize: Int) {
        log = FlashRecordLog(pages: pages, slotByteCount: Self.slotByteCount, pageSize: pageSize)
    }

    /// Finds the newest valid state record and where the next one goes; returns the state it
    /// holds (empty when there is none). Builds the key list: call it at start-up.
    public mutating func recover<B: Board>(on board: inout B) -> State {
        var state = State()
        log.recover(on: &board) { state = Self.decode($0) }
        return state
    }

    /// Appends `state` as the newest record.
    public mutating func write<B: Board>(_ state: State, on board: inout B) {
        _ = log.append(on: &board) { raw in
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
        }
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
}
