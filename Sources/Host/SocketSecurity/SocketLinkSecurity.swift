import BandLink
import BandWire

/// Runs the reader's ``SocketPairingInitiator`` over a freshly connected socket link, before
/// any ATT: the socket link's stand-in for what the kernel does when `BT_SECURITY` is raised.
public enum SocketLinkSecurity {
    /// SMP's transaction timeout (Core 5.4 Vol 3 Part H §3.4).
    public static let timeout: Duration = .seconds(30)

    /// Drives `initiator` to its end. `passkey` is asked only when the peer shows one; the time
    /// the user takes to type it does not count against the timeout.
    public static func run(_ initiator: inout SocketPairingInitiator, on link: any ATTBearer,
                           timeout: Duration = SocketLinkSecurity.timeout,
                           passkey: () -> UInt32?) -> SocketSecurityOutcome {
        var actions = initiator.start()
        while true {
            var index = 0
            while index < actions.count {
                let action = actions[index]
                index += 1
                switch action {
                case .send(let pdu):
                    do throws(LinkError) { try link.send(pdu.envelope) } catch {
                        // A Pairing Failed that cannot be sent still ends with its own outcome.
                        let finishing = actions.contains { if case .finish = $0 { true } else { false } }
                        if !finishing { return .failed(.link(error)) }
                    }
                case .askForPasskey:
                    actions += initiator.enteredPasskey(passkey())
                case .finish(let outcome):
                    return outcome
                }
            }
            let message: [UInt8]
            do throws(LinkError) {
                guard let received = try link.receive(timeout: timeout) else { return .failed(.timedOut) }
                message = received
            } catch {
                return .failed(.link(error))
            }
            if message.first == SocketSecurityPDU.envelopeOpcode {
                do throws(ParseError) {
                    actions = initiator.received(try SocketSecurityPDU(envelope: message))
                } catch {
                    return .failed(.malformed(error))
                }
            } else if message.count == 5, message[0] == 0x01, message[1] == SocketSecurityPDU.envelopeOpcode {
                // ATT Error Response to our envelope (Request Not Supported, or any error): no security here.
                actions = initiator.peerHasNoLinkSecurity()
            } else {
                return .failed(.unexpected("an ATT PDU (opcode 0x\(String(message.first ?? 0, radix: 16))) before the link was secured"))
            }
        }
    }
}
