import BandFirmware
import ChipRuntime
import Testing
import UARTFraming

/// The chip's host of the band's services: PDUs become ATT frames in a fixed outbox, which says
/// "cannot send" while less than two whole frames of room is left (notifications are then
/// dropped, history packets wait) and refuses — counts, never overruns — a frame that does not fit.
@Suite struct ChipLinkHostTests {
    static func host(entropyBytes: Int = 32) -> ChipLinkHost {
        let entropy = [UInt8](repeating: 7, count: entropyBytes), nonce = [UInt8](repeating: 9, count: 16)
        return entropy.withUnsafeBytes { e in nonce.withUnsafeBytes { n in ChipLinkHost(entropy: e, nonce: n) } }
    }

    @Test func theOutboxSaysNoBeforeItIsFullAndNeverOverruns() throws {
        var host = Self.host()
        let pdu = [UInt8](repeating: 0x1B, count: ChipBand.serverMTU)   // 254 bytes framed
        let canSendAtFirst = host.canSendWithoutBlocking()
        #expect(canSendAtFirst)
        for sent in 1...4 {
            let accepted = pdu.withUnsafeBytes { host.send($0) }
            #expect(accepted, "PDU \(sent) fits")
            // 1,024 bytes: room for two more whole frames after one and two PDUs, not after three.
            let canSend = host.canSendWithoutBlocking()
            #expect(canSend == (sent < 3), "after \(sent) PDUs")
        }
        let fifth = pdu.withUnsafeBytes { host.send($0) }
        #expect(!fifth, "a fifth 254-byte frame does not fit in 1,024 bytes")
        #expect(host.droppedFrames == 1)
        var board = ScriptedBoard()
        host.flush(to: &board)
        var frames: [[UInt8]] = []
        var decoder = UARTFrameDecoder()
        board.outbound.withUnsafeBytes { raw in decoder.decode(raw) { channel, payload in
            #expect(channel == .att)
            frames.append(Array(payload))
        } }
        #expect(frames == Array(repeating: pdu, count: 4))
        let emptyAgain = host.canSendWithoutBlocking()
        #expect(emptyAgain, "empty again after the flush")
    }

    @Test func secretsComeFromTheDRBGAndFailWithoutEntropy() throws {
        var seeded = Self.host()
        var first = [UInt8](repeating: 0, count: 16), second = first
        let filledFirst = first.withUnsafeMutableBytes { seeded.fillSecret($0) }
        let filledSecond = second.withUnsafeMutableBytes { seeded.fillSecret($0) }
        #expect(filledFirst && filledSecond)
        #expect(first != second && first != [UInt8](repeating: 0, count: 16))
        var unseeded = Self.host(entropyBytes: 16)   // below the DRBG's 32-byte minimum
        var bytes = [UInt8](repeating: 0, count: 16)
        let filled = bytes.withUnsafeMutableBytes { unseeded.fillSecret($0) }
        #expect(!filled, "no entropy: no secret, never a guessable one")
    }
}
