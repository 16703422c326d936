// libFuzzer harness for the simulated band's ATT server (BandFirmware).
//
// The input is a sequence of PDUs, each prefixed by a length byte, sent to a band over an
// in-memory bearer, with a simulated second between some of them. Properties:
//  1. nothing the reader sends makes the band trap;
//  2. every request, well-formed or not, and every undefined non-command opcode gets exactly
//     one response — its success response or an Error Response naming its opcode; nothing else
//     gets one; no PDU is longer than the negotiated ATT_MTU.
import BandATT
import BandFirmware
import BandLink
import BandWire

/// A bearer that hands the band one PDU at a time and keeps what it sends.
final class ScriptedBearer: ATTBearer {
    var mtu = 23
    var pollDescriptor: Int32? { nil }
    var incoming: [UInt8]? = nil
    var sent: [[UInt8]] = []
    func send(_ pdu: UnsafeRawBufferPointer) throws(LinkError) {
        guard pdu.count <= mtu else { throw .pduTooLarge(size: pdu.count, limit: mtu) }
        sent.append(Array(pdu))
    }
    func receive(into buffer: UnsafeMutableRawBufferPointer, timeout: Duration?) throws(LinkError) -> Int? {
        guard let pdu = incoming else { return nil }
        incoming = nil
        for (i, byte) in pdu.enumerated() { buffer[i] = byte }
        return pdu.count
    }
    func close() {}
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBandATTServer(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var configuration = BandConfiguration(start: BandInstant(seconds: 1_796_025_600))
    configuration.deterministicSecrets = true
    configuration.scenario = Scenario.builtIn("walk")!
    guard let band = try? SimulatedBand(configuration: configuration) else { fatalError("band did not boot") }
    let bearer = ScriptedBearer()
    band.connect(bearer)
    var index = 0
    while index < size, band.isConnected {
        let length = Int(data![index]) % 64
        index += 1
        let pdu = Array(UnsafeBufferPointer(start: data! + index, count: min(length, size - index)))
        index += pdu.count
        guard let opcode = pdu.first.map({ ATTOpcode(rawValue: $0) }) else {
            band.advance(by: .seconds(1))
            continue
        }
        bearer.sent.removeAll()
        bearer.incoming = pdu
        band.pump()
        precondition(bearer.sent.allSatisfy { $0.count <= bearer.mtu }, "a PDU exceeded ATT_MTU")
        let responses = bearer.sent.filter { ATTOpcode(rawValue: $0[0]).isResponse }
        // Requests, and opcodes nobody defined that are not commands, get exactly one answer (§3.4.1.1, §3.4.9).
        if opcode.isRequest || (opcode.name == nil && !opcode.isCommand) {
            precondition(responses.count == 1, "\(opcode) got \(responses.count) responses")
            let response = responses[0]
            precondition(response[0] == opcode.responseOpcode?.rawValue || (response[0] == 0x01 && response[1] == opcode.rawValue),
                         "\(opcode) answered with \(response)")
        } else {
            precondition(responses.isEmpty, "\(opcode) is not a request but got a response")
        }
    }
    return 0
}
