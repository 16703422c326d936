import BandLEHost
import BandWire
import ChipRuntime
import Testing

/// The BLE host's bonds in flash (``ChipBondStore`` over ``FlashBondLog``): they survive a reset,
/// the newest whole record wins, a cut write leaves the bonds before it.
@Suite struct ChipBondStoreTests {
    static func bond(_ n: Int, authenticated: Bool = false) -> LEBond {
        LEBond(peer: LEAddress(BluetoothAddress(0xC0_11_22_33_44_00 | UInt64(n & 0xFF)), type: n % 2 == 0 ? .public : .random),
               longTermKey: FixedBytes((0..<16).map { UInt8(truncatingIfNeeded: n &* 31 &+ $0) }), authenticated: authenticated)
    }

    static func expectSaved(_ store: inout ChipBondStore<ScriptedBoard>, _ bond: LEBond, sourceLocation: SourceLocation = #_sourceLocation) {
        let saved = store.save(bond)
        #expect(saved, "bond \(bond.peer) not saved", sourceLocation: sourceLocation)
    }

    /// What a store started on `board`'s flash holds, oldest first (a reset: RAM starts over).
    static func bondsAfterReset(_ board: ScriptedBoard) -> [LEBond] {
        let store = ChipBondStore(board: board)
        return (0..<store.count).compactMap { store.bond(at: $0) }
    }

    @Test("Erased flash: no bonds, nothing damaged")
    func erased() {
        let store = ChipBondStore(board: ScriptedBoard())
        #expect(store.count == 0 && store.damagedSlots == 0)
        #expect(store.bond(with: Self.bond(1).peer) == nil)
    }

    @Test("A bond survives a reset, with its key, address type and authentication")
    func survivesReset() {
        var store = ChipBondStore(board: ScriptedBoard())
        Self.expectSaved(&store, Self.bond(1, authenticated: true))
        Self.expectSaved(&store, Self.bond(2))
        let after = ChipBondStore(board: store.board)
        #expect(after.bond(with: Self.bond(1).peer) == Self.bond(1, authenticated: true))
        #expect(after.bond(with: Self.bond(2).peer) == Self.bond(2))
        #expect(after.bond(with: LEAddress(Self.bond(2).peer.address, type: .random)) == nil, "the address type is part of the identity")
    }

    @Test("Pairing again replaces the peer's bond; a fifth peer takes the oldest's place")
    func replaceAndEvict() {
        var store = ChipBondStore(board: ScriptedBoard())
        for n in 1...4 { Self.expectSaved(&store, Self.bond(n)) }
        var again = Self.bond(1, authenticated: true)
        again.longTermKey = FixedBytes([UInt8](repeating: 0xA5, count: 16))
        Self.expectSaved(&store, again)
        #expect(Self.bondsAfterReset(store.board) == [Self.bond(2), Self.bond(3), Self.bond(4), again])
        Self.expectSaved(&store, Self.bond(5))
        #expect(Self.bondsAfterReset(store.board) == [Self.bond(3), Self.bond(4), again, Self.bond(5)])
        #expect(store.bond(with: Self.bond(2).peer) == nil)
    }

    @Test("The newest table comes back across page switches, and the log goes on from it", arguments: [1, 37, 38, 74, 75, 200])
    func pageSwitches(writes: Int) {
        var store = ChipBondStore(board: ScriptedBoard())
        for n in 1...writes { Self.expectSaved(&store, Self.bond(n)) }
        let expected = (max(1, writes - 3)...writes).map { Self.bond($0) }
        #expect(Self.bondsAfterReset(store.board) == expected)
        var resumed = ChipBondStore(board: store.board)
        Self.expectSaved(&resumed, Self.bond(1_000))
        #expect(Self.bondsAfterReset(resumed.board) == Array(expected.suffix(3)) + [Self.bond(1_000)])
    }

    @Test("A power cut at every byte of a write (and of the page switch's erase) leaves the old bonds or the new ones",
          arguments: [2, 37])
    func powerCutAtEveryByte(previousWrites: Int) {
        var clean = ChipBondStore(board: ScriptedBoard())
        for n in 1...previousWrites { _ = clean.save(Self.bond(n)) }
        let old = Self.bondsAfterReset(clean.board)
        let eraseBytes = previousWrites % 37 == 0 ? 4_096 : 0   // page full: the next write erases the other page
        for budget in 0...(eraseBytes + FlashBondLog.slotByteCount) {
            if eraseBytes > 0, budget < eraseBytes, budget % 61 != 0 { continue }
            var store = ChipBondStore(board: clean.board)
            store.board.flashByteBudget = budget
            _ = store.save(Self.bond(500))
            store.board.flashByteBudget = nil
            let found = Self.bondsAfterReset(store.board)
            let new = Array(old.suffix(3)) + [Self.bond(500)]
            #expect(found == old || found == new, "budget \(budget)")
            if budget >= eraseBytes + FlashBondLog.slotByteCount { #expect(found == new, "budget \(budget)") }
            var resumed = ChipBondStore(board: store.board)
            Self.expectSaved(&resumed, Self.bond(600))
            #expect(Self.bondsAfterReset(resumed.board).last == Self.bond(600), "budget \(budget)")
        }
    }

    @Test("Damage at every byte of the newest record: the table before it, counted")
    func damagedNewest() {
        var clean = ChipBondStore(board: ScriptedBoard())
        for n in 1...3 { _ = clean.save(Self.bond(n)) }
        for byte in 0..<FlashBondLog.slotByteCount {
            var board = clean.board
            board.flash[FlashLayout.bondPages.lowerBound * 4096 + 2 * FlashBondLog.slotByteCount + byte] ^= 0x20
            let store = ChipBondStore(board: board)
            #expect(Self.bondsAfterReset(board) == [Self.bond(1), Self.bond(2)] && store.damagedSlots == 1, "byte \(byte)")
        }
    }

    @Test("A board without the bond pages: saving says it could not, never a trap")
    func noBondPages() {
        var board = ScriptedBoard()
        board.flash = [UInt8](repeating: 0xFF, count: FlashLayout.bondPages.lowerBound * 4096)
        var store = ChipBondStore(board: board)
        #expect(store.count == 0)
        let saved = store.save(Self.bond(1))
        #expect(!saved)
        #expect(store.bond(with: Self.bond(1).peer) == nil)
    }
}
