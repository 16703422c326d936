import ChipRuntime
import Testing

@Suite("Boot record in flash: survives resets, alternates pages, recovers from a damaged page")
struct BootRecordTests {
    /// Boots a firmware on `flash`, returns the flash afterwards and the 0x86 report it sent.
    private func boot(_ flash: [UInt8]?) -> (flash: [UInt8], report: [UInt8]) {
        var c = FirmwareConversation(flash: flash)
        let frames = c.takeFrames()
        return (c.firmware.board.flash, frames.first { $0.channel == 3 && $0.payload.first == 0x86 }?.payload ?? [])
    }

    private func report(bootCount: UInt8, damaged: UInt8) -> [UInt8] { [0x86, bootCount, 0, 0, 0, damaged, 0, 0, 0] + [UInt8](repeating: 0, count: 16) }

    @Test("Every reset counts one more boot, written to the other page")
    func bootsCount() {
        var flash: [UInt8]? = nil
        for expected in 1...5 {
            let result = boot(flash)
            #expect(result.report == report(bootCount: UInt8(expected), damaged: 0))
            // The newest record alternates: odd boots on page 0, even boots on page 1.
            let page = (expected - 1) % 2
            #expect(result.flash[page * 4096 + 8] == UInt8(expected))
            flash = result.flash
        }
    }

    @Test("A damaged newest page is counted and the older record used; never a trap", arguments: Array(0..<16))
    func damagedNewestPage(byte: Int) {
        var flash = boot(boot(nil).flash).flash       // boot 1 on page 0, boot 2 on page 1
        flash[4096 + byte] ^= 0x10                     // damage boot 2's record anywhere
        let result = boot(flash)
        #expect(result.report == report(bootCount: 2, damaged: 1))   // boot 1's record + 1
        // The new record went to page 1 (the damaged one, erased first), page 0 kept boot 1.
        #expect(result.flash[8] == 1 && result.flash[4096 + 8] == 2)
        #expect(boot(result.flash).report == report(bootCount: 3, damaged: 0))
    }

    @Test("Both pages damaged: start again at boot 1, both counted; a page of garbage beyond the record is ignored")
    func bothDamaged() {
        var flash = boot(boot(nil).flash).flash
        flash[0] = 0; flash[4096 + 5] ^= 0xFF
        #expect(boot(flash).report == report(bootCount: 1, damaged: 2))
        var untouched = boot(nil).flash
        untouched[100] = 0                             // outside the 16-byte record: not looked at
        #expect(boot(untouched).report == report(bootCount: 2, damaged: 0))
    }

    @Test("Programming can only clear bits: a record written over an unerased page would be damage")
    func programNeedsErase() {
        var board = ScriptedBoard()
        var ones: (UInt32, UInt32) = (0x0F0F_0F0F, 0)
        withUnsafeBytes(of: &ones) { board.flashProgram(page: 0, offset: 0, $0) }
        var twos: (UInt32, UInt32) = (0xF0F0_F0F0, 0)
        withUnsafeBytes(of: &twos) { board.flashProgram(page: 0, offset: 0, $0) }
        #expect(board.flash[0..<4] == [0, 0, 0, 0])
        board.flashErase(page: 0)
        #expect(board.flash[0..<8].allSatisfy { $0 == 0xFF })
    }

    @Test("The flash report is also sent on request (0x08)")
    func reportOnRequest() {
        var c = FirmwareConversation()
        _ = c.takeFrames()
        c.expectReply(.link, [0x08], [Frame(channel: 3, payload: [0x86, 1, 0, 0, 0, 0, 0, 0, 0] + [UInt8](repeating: 0, count: 16))])
    }
}
