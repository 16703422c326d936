import BandATT
import BandGATTServer
import BandHCI
import BandWire

extension LEHost {
    /// One ACL packet (header and data, no indicator) from the controller.
    mutating func handleACL<IO: LEHostIO>(_ packet: UnsafeRawBufferPointer, source: inout Source, io: inout IO) {
        var input = ByteCursor(packet)
        let header: HCIACLHeader
        do throws(ParseError) {
            header = try HCIACLHeader(parsing: &input)
        } catch {
            io.report(LEHostEvent<Source.WriteEffect>.dropped(.malformedACL(error)))
            return
        }
        guard let link = connection, header.handle == link.handle else {
            io.report(LEHostEvent<Source.WriteEffect>.dropped(.unknownHandle(header.handle)))
            return
        }
        // The decoder cut the packet at the announced length, so the data is exactly the rest.
        let data = input.readRemaining()
        var completed = false
        let drop = reassembly.push(data, boundary: header.boundary) { _, _ in completed = true }
        if let drop { io.report(LEHostEvent<Source.WriteEffect>.dropped(.l2cap(drop))) }
        guard completed else { return }
        // The PDU is still in the reassembly buffer; read it from there so the buffer is not
        // borrowed while the host changes.
        let pdu = reassembly.lastPDU
        switch pdu.channel {
        case .att: attPDU(pdu.payload, source: &source, io: &io)
        case .leSignaling: signalingPDU(pdu.payload, io: &io)
        case .securityManager: securityPDU(pdu.payload, io: &io)
        default: io.report(LEHostEvent<Source.WriteEffect>.dropped(.unknownChannel(pdu.channel.rawValue)))
        }
    }

    mutating func attPDU<IO: LEHostIO>(_ pdu: UnsafeRawBufferPointer, source: inout Source, io: inout IO) {
        guard var link = connection else { return }
        if IO.servesEveryATTPDU {
            _ = io.serveATT(pdu)
            return
        }
        guard !io.serveATT(pdu) else { return }
        let result = link.gatt.handle(pdu, source: &source, into: responseBuffer)
        connection = link
        if result.responseLength > 0 {
            let response = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(responseBuffer)[0..<result.responseLength])
            if !outbox.enqueue(channel: .att, { $0.writeBytes(response) }) {
                io.report(LEHostEvent<Source.WriteEffect>.dropped(.outboxFull(channel: L2CAPChannelID.att.rawValue)))
            }
        }
        switch result.event {
        case .none: break
        case .exchangedMTU(let mtu): io.report(LEHostEvent<Source.WriteEffect>.mtuChanged(mtu))
        default: io.report(LEHostEvent<Source.WriteEffect>.gatt(result.event))
        }
    }

    mutating func signalingPDU<IO: LEHostIO>(_ pdu: UnsafeRawBufferPointer, io: inout IO) {
        guard var link = connection else { return }
        let outcome = link.signaling.receive(pdu)
        connection = link
        switch outcome {
        case .none: break
        case .reject(let identifier, let reason):
            enqueueSignaling(.commandReject, identifier: identifier, L2CAPCommandReject(reason: reason), io: &io)
        case .refuseChannel(let identifier):
            enqueueSignaling(.leCreditBasedConnectionResponse, identifier: identifier, LECreditBasedConnectionRefusal(), io: &io)
        case .parametersAnswered(let accepted):
            io.report(LEHostEvent<Source.WriteEffect>.connectionParametersAnswered(accepted: accepted))
        case .requestRejected:
            io.report(LEHostEvent<Source.WriteEffect>.connectionParametersAnswered(accepted: false))
        case .malformed(let error):
            io.report(LEHostEvent<Source.WriteEffect>.dropped(.malformedSignaling(error)))
        }
    }

    mutating func enqueueSignaling<IO: LEHostIO, Body: WireEncodable>(_ code: LESignalingCode, identifier: UInt8, _ body: Body, io: inout IO) {
        let queued = outbox.enqueue(channel: .leSignaling) { writer in
            let start = writer.count
            LESignalingHeader(code: code, identifier: identifier, dataLength: 0).encode(into: &writer)
            body.encode(into: &writer)
            if !writer.overflowed { writer.patchUInt16LE(UInt16(writer.count - start - LESignalingHeader.size), at: start + 2) }
        }
        if !queued { io.report(LEHostEvent<Source.WriteEffect>.dropped(.outboxFull(channel: L2CAPChannelID.leSignaling.rawValue))) }
    }

    mutating func securityPDU<IO: LEHostIO>(_ pdu: UnsafeRawBufferPointer, io: inout IO) {
        guard var link = connection else { return }
        pairingDeadline = now &+ Self.pairingTimeoutMilliseconds
        pairingGuard.advance(now: now)
        let wait = pairingGuard.remaining(now: now)
        if wait > 0, pdu.first == SMPCode.pairingRequest.rawValue {
            var refusal = SecurityManager.Outcome()
            _ = refusal.reply.append(SMPCode.pairingFailed.rawValue)
            _ = refusal.reply.append(SMPFailure.repeatedAttempts)
            refusal.failure = SMPFailure(reason: SMPFailure.repeatedAttempts, sentByBand: true)
            io.report(LEHostEvent<Source.WriteEffect>.pairingThrottled(retryAfterMilliseconds: wait))
            performSecurity(refusal, io: &io)
            return
        }
        let outcome = link.security.receive(pdu)
        connection = link
        performSecurity(outcome, io: &io)
    }

    /// Carries out what the security manager asked for: SMP PDUs out, failures and passkeys reported.
    mutating func performSecurity<IO: LEHostIO>(_ outcome: SecurityManager.Outcome, io: inout IO) {
        if outcome.reply.count > 0 {
            let reply = outcome.reply
            let queued = outbox.enqueue(channel: .securityManager) { writer in reply.write(to: &writer) }
            if !queued { io.report(LEHostEvent<Source.WriteEffect>.dropped(.outboxFull(channel: L2CAPChannelID.securityManager.rawValue))) }
        }
        if let error = outcome.malformed { io.report(LEHostEvent<Source.WriteEffect>.dropped(.malformedSecurity(error))) }
        if let failure = outcome.failure {
            io.report(LEHostEvent<Source.WriteEffect>.pairingFailed(failure))
            if failure.reason == SMPFailure.confirmValueFailed {
                let wait = pairingGuard.passkeyFailed(now: now)
                if wait > 0 { io.report(LEHostEvent<Source.WriteEffect>.pairingThrottled(retryAfterMilliseconds: wait)) }
            }
        }
        if let passkey = outcome.displayPasskey { io.report(LEHostEvent<Source.WriteEffect>.displayPasskey(passkey)) }
        if let request = outcome.request { send(request, io: &io) }
        if let request = outcome.followUp { send(request, io: &io) }
        if outcome.bond != nil { pairingGuard.succeeded() }
        if let bond = outcome.bond {
            let saved = io.bonds.save(bond)
            io.report(LEHostEvent<Source.WriteEffect>.bonded(bond, saved: saved))
        }
    }

    /// The controller command a pairing step waits for.
    mutating func send<IO: LEHostIO>(_ request: SecurityManager.ControllerRequest, io: inout IO) {
        switch request {
        case .readLocalPublicKey: send(HCIParameterlessCommand(.leReadLocalP256PublicKey), io: &io)
        case .generateDHKey(let key): send(LEGenerateDHKey(remotePublicKey: key), io: &io)
        case .random: send(HCIParameterlessCommand(.leRand), io: &io)
        }
    }

    /// SMP's timeout (Core 5.4 Vol 3 Part H §3.4).
    static var pairingTimeoutMilliseconds: UInt32 { 30_000 }
}
