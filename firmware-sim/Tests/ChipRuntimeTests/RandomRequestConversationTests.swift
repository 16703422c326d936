import BandATT
import BandFirmware
import BandWire
import Testing

/// A seeded miniature of fuzz/bandserver, on the Linux band and on the chip's band (every PDU in
/// a UART frame through the firmware's frame decoder and the band's table).
@Suite("Random requests on the Linux band and the chip's band")
struct RandomRequestConversationTests {
    /// One step of the seeded session: whether a second passes first, then the PDU.
    struct Step {
        var secondPasses: Bool
        var pdu: [UInt8]
    }

    /// 5000 PDUs from seed 2026: opcodes a client might send plus a few nobody defined, each PDU
    /// within the default ATT_MTU, handles and UUIDs biased toward the band's table.
    static func steps() -> [Step] {
        var random = Xoshiro256StarStar(seed: 2026)
        let opcodes: [UInt8] = [0x02, 0x04, 0x06, 0x08, 0x0A, 0x0C, 0x0E, 0x10, 0x12, 0x16, 0x18, 0x1E, 0x20, 0x52, 0xD2,
                                0x3F, 0x7F, 0x00, 0x1B, 0x01]
        return (0..<5000).map { _ in
            var pdu = [opcodes[Int(random.next() % UInt64(opcodes.count))]]
            let length = Int(random.next() % 23)
            for _ in 0..<length {
                pdu.append(random.chance(0.5) ? UInt8(random.next() % 0x3A) : UInt8(truncatingIfNeeded: random.next()))
            }
            return Step(secondPasses: random.chance(0.05), pdu: pdu)
        }
    }

    @Test("5000 random PDUs: no crash; every request and undefined non-command gets exactly one answer; commands none",
          arguments: BandKind.allCases)
    func randomPDUsGetExactlyOneAnswer(_ kind: BandKind) throws {
        var band = try kind.make()
        var answered = 0
        var rounds = 0
        for (round, step) in Self.steps().enumerated() {
            let pdu = step.pdu
            var sent: [[UInt8]] = []
            if step.secondPasses { sent += try band.advance(seconds: 1) }
            guard band.isConnected else { break }
            rounds = round + 1
            let opcode = ATTOpcode(rawValue: pdu[0])
            let responses = (sent + (try band.send(pdu))).filter { ATTOpcode(rawValue: $0[0]).isResponse }
            if opcode.isRequest || (opcode.name == nil && !opcode.isCommand) {
                #expect(responses.count == 1, "round \(round): \(Hex.encode(pdu)) got \(responses.map(Hex.encode))")
                if let response = responses.first {
                    #expect(response[0] == opcode.responseOpcode?.rawValue || (response[0] == 0x01 && response[1] == pdu[0]),
                            "round \(round): \(Hex.encode(pdu)) answered \(Hex.encode(response))")
                }
                answered += 1
            } else {
                #expect(responses.isEmpty, "round \(round): \(Hex.encode(pdu)) is no request but got \(responses.map(Hex.encode))")
            }
        }
        #expect(answered > 3000, "\(answered) answered in \(rounds) rounds")
    }

    /// The same 5000 PDUs to both bands: every answer and every notification in between, byte for
    /// byte. The one difference by design is the MTU each offers (517 on Linux, 247 on the chip).
    @Test("Both bands answer the random session identically, but for the MTU they offer")
    func bothBandsAnswerAlike() throws {
        var transcripts: [[String]] = []
        for kind in BandKind.allCases {
            var band = try kind.make()
            var lines: [String] = []
            for step in Self.steps() {
                if step.secondPasses { lines += try band.advance(seconds: 1).map { "+1s < " + Hex.encode($0) } }
                lines.append("> " + Hex.encode(step.pdu))
                lines += try band.send(step.pdu).map { "< " + Hex.encode($0) }
            }
            transcripts.append(lines)
        }
        let offered = ["< " + Hex.encode([0x03, 0x05, 0x02]), "< " + Hex.encode([0x03, 0xF7, 0x00])]   // 517, 247
        let (linux, chip) = (transcripts[0], transcripts[1])
        #expect(linux.count == chip.count && linux.count > 8000)
        let differences = (0..<min(linux.count, chip.count)).filter { linux[$0] != chip[$0] }
        #expect(differences.allSatisfy { [linux[$0], chip[$0]] == offered },
                "first difference: \(differences.first.map { "line \($0): Linux \(linux[$0]), chip \(chip[$0])" } ?? "")")
        #expect(!differences.isEmpty, "the session exchanges the MTU at least once")
    }
}
