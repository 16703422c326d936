import BandATT
import BandFirmware
import BandLink
import BandTestSupport
import BandWire
import Testing

@Suite("Random requests (a seeded miniature of fuzz/bandserver)")
struct RandomRequestTests {
    @Test("5000 random PDUs: no crash; every request and undefined non-command gets exactly one answer; commands none")
    func randomPDUsGetExactlyOneAnswer() throws {
        var random = Xoshiro256StarStar(seed: 2026)
        let c = try Conversation()
        // Opcodes a client might send, plus a few nobody defined.
        let opcodes: [UInt8] = [0x02, 0x04, 0x06, 0x08, 0x0A, 0x0C, 0x0E, 0x10, 0x12, 0x16, 0x18, 0x1E, 0x20, 0x52, 0xD2,
                                0x3F, 0x7F, 0x00, 0x1B, 0x01]
        var answered = 0
        for round in 0..<5000 {
            var pdu = [opcodes[Int(random.next() % UInt64(opcodes.count))]]
            let length = Int(random.next() % 23) // the whole PDU fits the default ATT_MTU
            for _ in 0..<length {
                // Bias handles and UUIDs toward the band's table so requests reach real attributes.
                pdu.append(random.chance(0.5) ? UInt8(random.next() % 0x3A) : UInt8(truncatingIfNeeded: random.next()))
            }
            if random.chance(0.05) { c.band.advance(by: .seconds(1)) }
            guard c.band.isConnected else { break }
            try c.reader.send(pdu)
            c.band.pump()
            let opcode = ATTOpcode(rawValue: pdu[0])
            let responses = try c.drain().filter { ATTOpcode(rawValue: $0[0]).isResponse }
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
        #expect(answered > 3000)
    }
}
