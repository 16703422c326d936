import BandFirmwareCore
import BandProtocol
import BandWire
import ChipRuntime
import Testing

/// The band's keys and acknowledged position in flash (``FlashStateLog``): the newest whole
/// record wins, so a cut write or a damaged record leaves the state before it.
@Suite struct FlashStateLogTests {
    static func state(_ n: UInt32) -> FlashStateLog.State {
        let keys = (0..<Int(n % 5)).map { index in
            KeyStore.Entry(readerID: UInt64(n) << 8 | UInt64(index), key: BandKey((0..<16).map { UInt8(truncatingIfNeeded: Int(n) + $0 * index) }),
                           lastUsed: n &+ UInt32(index), acknowledged: n * 10 + UInt32(index))
        }
        return FlashStateLog.State(acknowledgedThrough: n * 7, keys: keys)
    }

    static func recover(_ board: inout ScriptedBoard) -> (log: FlashStateLog, state: FlashStateLog.State) {
        var log = FlashStateLog(pageSize: 4096)
        let state = log.recover(on: &board)
        return (log, state)
    }

    @Test("Erased flash: no keys, nothing acknowledged")
    func erased() {
        var board = ScriptedBoard()
        let found = Self.recover(&board)
        #expect(found.state == FlashStateLog.State() && found.log.damagedSlots == 0)
    }

    @Test("The newest state comes back, across page switches", arguments: [1, 2, 27, 28, 29, 57, 100])
    func roundTrip(writes: Int) {
        var board = ScriptedBoard()
        var log = Self.recover(&board).log
        for n in 1...writes { log.write(Self.state(UInt32(n)), on: &board) }
        #expect(Self.recover(&board).state == Self.state(UInt32(writes)))
        // And the log goes on from where it was.
        var resumed = Self.recover(&board).log
        resumed.write(Self.state(1_000), on: &board)
        #expect(Self.recover(&board).state == Self.state(1_000))
    }

    @Test("A power cut at every byte of a write (and of the page switch's erase) leaves the old state or the new one",
          arguments: [3, 28, 56])
    func powerCutAtEveryByte(previousWrites: Int) {
        var clean = ScriptedBoard()
        var cleanLog = Self.recover(&clean).log
        for n in 1...previousWrites { cleanLog.write(Self.state(UInt32(n)), on: &clean) }
        let old = Self.state(UInt32(previousWrites))
        let new = Self.state(500)
        let eraseBytes = previousWrites % 28 == 0 ? 4_096 : 0   // page full: the next write erases the other page
        for budget in Array(0...(eraseBytes + 144)) {
            if eraseBytes > 0, budget < eraseBytes, budget % 61 != 0 { continue }
            var board = clean
            var log = Self.recover(&board).log
            board.flashByteBudget = budget
            log.write(new, on: &board)
            board.flashByteBudget = nil
            let found = Self.recover(&board)
            #expect(found.state == (budget >= eraseBytes + 144 ? new : old) || (found.state == new && budget >= eraseBytes + 140),
                    "budget \(budget)")
            var resumed = found.log
            resumed.write(Self.state(600), on: &board)
            #expect(Self.recover(&board).state == Self.state(600), "budget \(budget)")
        }
    }

    @Test("Damage at every byte of the newest record: the one before it, counted")
    func damagedNewest() {
        var clean = ScriptedBoard()
        var log = Self.recover(&clean).log
        for n in 1...5 { log.write(Self.state(UInt32(n)), on: &clean) }
        for byte in 0..<144 {
            var board = clean
            board.flash[FlashLayout.statePages.lowerBound * 4096 + 4 * 144 + byte] ^= 0x20
            let found = Self.recover(&board)
            #expect(found.state == Self.state(4) && found.log.damagedSlots == 1, "byte \(byte)")
        }
    }

    @Test("A whole record numbered 0xFFFFFFFF is damage, not the newest state: later writes still win (found by fuzz/flashpages)")
    func recordNumberedLastIsDamage() {
        var board = ScriptedBoard()
        var log = Self.recover(&board).log
        log.write(Self.state(1), on: &board)
        // In the other page's first slot: a record whose CRC is right but whose sequence number is
        // 0xFFFFFFFF, acknowledging through 9 with no keys. Trusted, it would be the newest state,
        // and the next write's number would wrap to 0 and lose to it at every recovery.
        var forged = [UInt8](repeating: 0xFF, count: 144)
        forged[4..<9] = [9, 0, 0, 0, 0]
        var crc = CRC32()
        crc.update(forged[0..<140])
        for byte in 0..<4 { forged[140 + byte] = UInt8(truncatingIfNeeded: crc.value >> UInt32(8 * byte)) }
        let page = (FlashLayout.statePages.lowerBound + 1) * 4096
        for (index, byte) in forged.enumerated() { board.flash[page + index] = byte }

        let found = Self.recover(&board)
        #expect(found.state == Self.state(1) && found.log.damagedSlots == 1)
        var resumed = found.log
        resumed.write(Self.state(2), on: &board)
        #expect(Self.recover(&board).state == Self.state(2))
    }
}
