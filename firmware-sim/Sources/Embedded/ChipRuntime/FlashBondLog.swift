import BandLEHost
import BandWire

/// The BLE host's bonds in flash pages (``FlashLayout/bondPages``), so a central that paired
/// encrypts again after a reset without a new passkey.
///
/// Each change appends the whole bond table as one 108-byte record to a ``FlashRecordLog`` (the
/// other page erased when one is full; the valid record with the highest sequence is the table),
/// so a reset in the middle of a write (or of the erase) leaves the table as it was before:
/// nothing older is touched before a newer record is in place.
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

    private var log: FlashRecordLog
    /// Slots found neither erased nor valid at recovery.
    public var damagedSlots: UInt32 { log.damagedSlots }

    public init(pages: Range<Int> = FlashLayout.bondPages, pageSize: Int) {
        log = FlashRecordLog(pages: pages, slotByteCount: Self.slotByteCount, pageSize: pageSize)
    }

    /// Finds the newest valid record and where the next one goes; calls `found` with each bond
    /// it holds, in order. Call at start-up.
    public mutating func recover<B: Board>(on board: inout B, _ found: (LEBond) -> Void) {
        log.recover(on: &board) { bytes in
            for index in 0..<min(Int(bytes[4]), Self.capacity) { found(Self.decodeBond(bytes, at: 8 + index * Self.bondByteCount)) }
        }
    }

    /// Appends `bonds` (at most ``capacity``) as the newest record. Returns false when the board
    /// has no flash for it (fewer pages than the layout), true once the record is programmed.
    public mutating func write<B: Board>(_ bonds: UnsafeBufferPointer<LEBond>, on board: inout B) -> Bool {
        log.append(on: &board) { raw in
            let count = min(bonds.count, Self.capacity)
            raw[4] = UInt8(count)
            for index in 0..<count { Self.encode(bonds[index], into: raw, at: 8 + index * Self.bondByteCount) }
        }
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
}
