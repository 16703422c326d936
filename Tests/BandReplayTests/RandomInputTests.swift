import BandATT
import BandReplay
import BandTestSupport
import BandWire
import SeededRandom
import Testing

/// PDUs a hostile or broken client might send: every opcode, handles near the database's,
/// ranges in any order, lengths from 0 to past the MTU.
private func randomPDU(_ random: inout SplitMix64) -> [UInt8] {
    let opcodes: [UInt8] = [0x02, 0x04, 0x06, 0x08, 0x0A, 0x0C, 0x0E, 0x10, 0x12, 0x16, 0x18, 0x1E, 0x20, 0x52, 0xD2, 0x01, 0x1B, 0x7F, 0xFF]
    var pdu = [opcodes[Int(random.next() % UInt64(opcodes.count))]]
    let length = Int(random.next() % 40)
    for _ in 0..<length {
        // Mostly small values, so handles land on and around real attributes.
        pdu.append(random.next() % 3 == 0 ? random.byte() : UInt8(random.next() % 16))
    }
    return pdu
}

@Test func theReplayServerAnswersTenThousandRandomPDUsWithinTheMTUAndNeverTraps() throws {
    let server = try strapServer(mtu: 64)
    var random = SplitMix64(state: 6)
    var output = [UInt8](repeating: 0, count: ATT.maximumMTU)
    for _ in 0..<10_000 {
        let pdu = randomPDU(&random)
        let (length, _) = pdu.withUnsafeBytes { raw in output.withUnsafeMutableBytes { server.handle(raw, into: $0) } }
        #expect(length <= server.mtu, "a response longer than ATT_MTU to \(Hex.encode(pdu))")
        let opcode = ATTOpcode(rawValue: pdu[0])
        // Requests are owed exactly one answer; so are opcodes ATT does not define, unless they
        // carry the command bit (Core 5.4 Vol 3 Part F §3.4.9); nothing else is answered.
        let owed = opcode.isRequest || (opcode.name == nil && !opcode.isCommand)
        #expect((length > 0) == owed, "\(owed ? "no" : "an") answer to \(Hex.encode(pdu))")
        if length > 0 {
            #expect(throws: Never.self) { _ = try ATTPDU(parsingAll: Array(output[0..<length])) }
        }
    }
}

@Test func theReconstructorTakesTenThousandRandomPDUsFromBothEndsWithoutTrapping() {
    var reconstructor = GATTDatabaseReconstructor()
    var random = SplitMix64(state: 7)
    var rejected = 0
    for _ in 0..<10_000 {
        var pdu = randomPDU(&random)
        // Responses too, so pairing and every apply path run.
        if random.next() % 2 == 0 { pdu[0] = [0x01, 0x03, 0x05, 0x07, 0x09, 0x0B, 0x0D, 0x11, 0x13][Int(random.next() % 9)] }
        let sender: ATTSender = random.next() % 2 == 0 ? .recordingHost : .remoteDevice
        do {
            try pdu.withUnsafeBytes { try reconstructor.observe($0, from: sender, on: TraceConnection(handle: UInt16(random.next() % 2))) }
        } catch {
            rejected += 1
        }
    }
    #expect(rejected > 0 && rejected < 10_000, "random input exercises both the accepting and the rejecting paths")
    for side in reconstructor.sides {
        let database = reconstructor.database(side)
        #expect(database.services.map(\.handle) == database.services.map(\.handle).sorted())
        _ = ReplayAttributeTable(database)  // builds without trapping on whatever was learned
    }
}
