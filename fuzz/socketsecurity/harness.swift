// libFuzzer harness for the socket link's security messages and machines (SocketSecurity):
// `SocketSecurityPDU(envelope:)` on arbitrary bytes, and a stream of such messages fed to the
// device's `SocketPairingResponder` and the reader's `SocketPairingInitiator`.
// The first byte picks: even → the rest is one envelope; odd → the rest is a list of
// (u8 length, bytes) messages, delivered to a responder (a watch with a fixed passkey) and to
// an initiator (pairing with that passkey, or encrypting with a bond), each after its start.
//
// Properties checked on every input:
//  1. decoding never traps; an error's offset lies inside the envelope (or at its end);
//  2. what decodes re-encodes to the same bytes, and every envelope fits ATT_MTU 23;
//  3. the machines never trap on any order of messages; everything they send decodes back to
//     what they meant and fits ATT_MTU 23; a responder keeps a bond only after answering a
//     Pairing Random whose confirm value matched (so never more bonds than Pairing Randoms seen);
//     the initiator finishes at most once.
import BandWire
import SocketSecurity

func check(_ pdu: SocketSecurityPDU) {
    let envelope = pdu.envelope
    precondition(envelope.count <= 23, "\(pdu.name) is \(envelope.count) bytes")
    let back: SocketSecurityPDU
    do { back = try SocketSecurityPDU(envelope: envelope) } catch { preconditionFailure("\(pdu.name) does not decode: \(error)") }
    precondition(back == pdu, "\(pdu.name) changed in a round trip")
}

func decode(_ bytes: [UInt8]) -> SocketSecurityPDU? {
    do {
        let pdu = try SocketSecurityPDU(envelope: bytes)
        precondition(pdu.envelope == bytes, "re-encoding differs: \(bytes) → \(pdu.envelope)")
        check(pdu)
        return pdu
    } catch {
        precondition(error.offset >= 0 && error.offset <= bytes.count, "offset \(error.offset) outside \(bytes.count) bytes")
        return nil
    }
}

func counting(_ start: UInt8) -> (Int) -> [UInt8] {
    var next = start
    return { count in (0..<count).map { _ in next &+= 1; return next } }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSocketSecurity(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard size > 0, let data else { return 0 }
    let input = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    if data[0] % 2 == 0 {
        _ = decode(input)
        return 0
    }
    var messages: [SocketSecurityPDU] = []
    var index = 0
    while index < input.count {
        let length = Int(input[index])
        index += 1
        let end = min(index + length, input.count)
        if let pdu = decode(Array(input[index..<end])) { messages.append(pdu) }
        index = end
    }
    var watch = SocketPairingResponder(ioCapability: .displayOnly, requiresPasskey: data[0] & 2 != 0,
                                       fixedPasskey: UInt32(data[0]) * 3_907, random: counting(data[0]))
    var randoms = 0
    for pdu in messages {
        if case .pairingRandom = pdu { randoms += 1 }
        for case .send(let answer) in watch.received(pdu) { check(answer) }
        precondition(watch.bonds.count <= randoms, "\(watch.bonds.count) bonds after \(randoms) Pairing Random")
        if data[0] & 4 != 0 { watch.connectionEnded() }
    }
    let bond = SocketBond(ediv: 1, rand: 2, longTermKey: [UInt8](repeating: data[0], count: 16))
    var reader = SocketPairingInitiator(mode: data[0] & 8 != 0 ? .encrypt(bond) : .pair(ioCapability: .keyboardOnly), random: counting(data[0]))
    var finished = 0
    func act(_ actions: [SocketPairingInitiator.Action]) {
        for action in actions {
            switch action {
            case .send(let pdu): check(pdu)
            case .askForPasskey: act(reader.enteredPasskey(data[0] & 16 != 0 ? nil : UInt32(data[0]) * 3_907))
            case .finish: finished += 1
            }
        }
    }
    act(reader.start())
    for pdu in messages where !reader.isFinished { act(reader.received(pdu)) }
    precondition(finished <= 1, "the initiator finished \(finished) times")
    return 0
}
