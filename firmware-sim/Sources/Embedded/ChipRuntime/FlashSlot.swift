import BandWire

/// One fixed-size slot in a flash page, written once after the page's erase: its content, then a
/// CRC-32 (BandWire's, IEEE) of the content in its last 4 bytes (little-endian). A slot is
/// **erased** (all 0xFF: free), **valid** (the CRC matches) or **damaged** (anything else: a
/// program a reset cut short, or bits that flipped). The minute ring (BandFirmwareCore's `FlashMinuteLog`), the
/// state log (`FlashStateLog`) and the bond log (``FlashBondLog``) are made of them, each slot's first
/// word its sequence number.
///
/// **A sequence number of 0xFFFFFFFF is damage too**, CRC or not: no firmware writes it (it would
/// take 4·10⁹ records, far beyond the flash's endurance), and trusting one would make the next
/// number wrap to 0 below it, so every later record would lose to it at recovery — keys paired
/// after it forgotten at each reset, the ring numbering the same minutes again (found by
/// fuzz/flashpages: a CRC-valid state record with that number, solved by the fuzzer).
package enum FlashSlot {
    package enum State: Equatable { case erased, valid, damaged }

    package static func state(of slot: UnsafeRawBufferPointer) -> State {
        if isErased(slot) { return .erased }
        let content = slot.count - 4
        guard content >= 0 else { return .damaged }
        var crc = CRC32()
        crc.update(UnsafeRawBufferPointer(rebasing: slot[0..<content]))
        guard word(slot, content) == crc.value, content < 4 || word(slot, 0) != FlashSlot.unwrittenSequence else { return .damaged }
        return .valid
    }

    /// The one sequence number no slot legitimately holds (above).
    package static let unwrittenSequence: UInt32 = 0xFFFF_FFFF

    /// Whether every bit of `slot` is 1. Recovery asks this of every slot of every page (1,700
    /// in the ring), most of them erased, so the words are AND-ed together and compared once —
    /// 6 loads for a 24-byte slot instead of a branch per byte.
    package static func isErased(_ slot: UnsafeRawBufferPointer) -> Bool {
        var ones: UInt32 = 0xFFFF_FFFF
        var offset = 0
        while offset + 4 <= slot.count {
            ones &= slot.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
            offset += 4
        }
        while offset < slot.count {
            ones &= UInt32(slot[offset]) | 0xFFFF_FF00
            offset += 1
        }
        return ones == 0xFFFF_FFFF
    }

    /// Writes the CRC of everything before the last 4 bytes into them.
    package static func seal(_ slot: UnsafeMutableRawBufferPointer) {
        let content = slot.count - 4
        var crc = CRC32()
        crc.update(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(slot)[0..<content]))
        put(crc.value, into: slot, at: content)
    }

    package static func word(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
    }

    package static func put(_ value: UInt32, into bytes: UnsafeMutableRawBufferPointer, at offset: Int) {
        for byte in 0..<4 { bytes[offset + byte] = UInt8(truncatingIfNeeded: value >> UInt32(8 * byte)) }
    }
}
