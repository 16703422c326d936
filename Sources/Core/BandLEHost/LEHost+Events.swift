import BandGATTServer
import BandHCI
import BandWire

extension LEHost {
    /// Queues the command of a bring-up step.
    mutating func send<IO: LEHostIO>(bringUpCommand step: ControllerBringUp.Step, io: inout IO) {
        switch step {
        case .setEventMask: send(HCIEventMask.peripheral, io: &io)
        case .setLEEventMask: send(HCIEventMask.lePeripheral, io: &io)
        case .setAdvertisingParameters: send(configuration.advertisingParameters, io: &io)
        case .setAdvertisingData:
            send(LEAdvertisingPayloadCommand(opcode: .leSetAdvertisingData, payload: configuration.advertisingData.bytes), io: &io)
        case .setScanResponseData:
            send(LEAdvertisingPayloadCommand(opcode: .leSetScanResponseData, payload: configuration.scanResponse.bytes), io: &io)
        case .enableAdvertising: send(LESetAdvertisingEnable(true), io: &io)
        case .done: break
        default: send(HCIParameterlessCommand(step.opcode), io: &io)
        }
    }

    /// One HCI event (header and parameters, no indicator).
    mutating func handleEvent<IO: LEHostIO>(_ packet: UnsafeRawBufferPointer, source: inout Source, io: inout IO) {
        var input = ByteCursor(packet)
        var code = HCIEventCode(rawValue: 0)
        do throws(ParseError) {
            let header = try HCIEventHeader(parsing: &input)
            code = header.code
            var parameters = try input.readCursor(Int(header.parameterLength), "event parameters")
            switch header.code {
            case .commandComplete:
                let allowed = try parameters.readUInt8("Num_HCI_Command_Packets")
                let opcode = HCIOpcode(rawValue: try parameters.readUInt16LE("Command_Opcode"))
                guard commands.answered(opcode, allowed: allowed, now: now) else { return }
                // Every command this host sends returns a status first.
                let status = HCIStatus(rawValue: try parameters.readUInt8("Status"))
                commandCompleted(opcode, status: status, returnParameters: &parameters, io: &io)
            case .commandStatus:
                let status = try HCICommandStatus(parsing: &parameters)
                guard commands.answered(status.opcode, allowed: status.allowedCommandPackets, now: now) else { return }
                if status.status != .success { commandCompleted(status.opcode, status: status.status, returnParameters: &parameters, io: &io) }
            case .numberOfCompletedPackets:
                let completed = try NumberOfCompletedPackets(parsing: &parameters)
                for i in 0..<completed.count where completed[i].handle == connection?.handle {
                    let excess = aclCredits.complete(Int(completed[i].completed))
                    if excess > 0 { io.report(LEHostEvent<Source.WriteEffect>.dropped(.excessCompletedPackets(excess))) }
                }
            case .disconnectionComplete:
                let event = try DisconnectionComplete(parsing: &parameters)
                guard event.status == 0, event.handle == connection?.handle else { return }
                dropConnection()
                io.report(LEHostEvent<Source.WriteEffect>.disconnected(handle: event.handle, reason: HCIStatus(rawValue: event.reason)))
                restartAdvertising(io: &io)
            case .encryptionChange:
                let event = try EncryptionChange(parsing: &parameters)
                guard event.handle == connection?.handle else { return }
                encryptionChanged(event, io: &io)
            case .hardwareError:
                let hardwareCode = try parameters.readUInt8("hardware code")
                io.report(LEHostEvent<Source.WriteEffect>.controllerError(.hardwareError(hardwareCode)))
                start(now: now, io: &io)
            case .leMeta:
                try handleLEMeta(&parameters, io: &io)
            default:
                break  // events this host did not enable or does not need
            }
        } catch {
            io.report(LEHostEvent<Source.WriteEffect>.dropped(.malformedEvent(code, error)))
        }
    }

    mutating func handleLEMeta<IO: LEHostIO>(_ parameters: inout ByteCursor, io: inout IO) throws(ParseError) {
        switch LEMetaSubevent(rawValue: try parameters.peekUInt8("LE subevent code")) {
        case .connectionComplete:
            let event = try LEConnectionComplete(parsing: &parameters)
            connected(status: event.status, handle: event.handle, role: event.role, peer: event.peer,
                      interval: event.interval, latency: event.latency, timeout: event.supervisionTimeout, io: &io)
        case .enhancedConnectionComplete:
            let event = try LEEnhancedConnectionComplete(parsing: &parameters)
            connected(status: event.status, handle: event.handle, role: event.role, peer: event.peer,
                      interval: event.interval, latency: event.latency, timeout: event.supervisionTimeout, io: &io)
        case .connectionUpdateComplete:
            _ = try parameters.readUInt8("LE subevent code")
            let status = try parameters.readUInt8("status")
            let handle = try parameters.readUInt16LE("connection handle") & 0x0FFF
            let interval = try parameters.readUInt16LE("connection interval")
            let latency = try parameters.readUInt16LE("peripheral latency")
            let timeout = try parameters.readUInt16LE("supervision timeout")
            guard status == 0, handle == connection?.handle else { return }
            connection?.interval = interval
            connection?.latency = latency
            connection?.supervisionTimeout = timeout
        case .readLocalP256PublicKeyComplete, .generateDHKeyComplete:
            let event = try LESecureConnectionsKeyEvent(parsing: &parameters)
            guard var link = connection else { return }
            let ok = event.status == .success
            let outcome: SecurityManager.Outcome
            if event.subevent == .readLocalP256PublicKeyComplete {
                outcome = link.security.localPublicKey(ok ? event.key : nil)
            } else {
                outcome = event.key.withUnsafeBytes { link.security.generatedDHKey(ok ? P256Coordinate($0) : nil) }
            }
            connection = link
            performSecurity(outcome, io: &io)
        case .dataLengthChange:
            let event = try LEDataLengthChange(parsing: &parameters)
            guard event.handle == connection?.handle else { return }
            io.report(LEHostEvent<Source.WriteEffect>.dataLengthChanged(transmitOctets: Int(event.transmitOctets),
                                                                        receiveOctets: Int(event.receiveOctets)))
        case .longTermKeyRequest:
            let request = try LELongTermKeyRequest(parsing: &parameters)
            guard let link = connection, request.handle == link.handle else { return }
            send(LELongTermKeyRequestReply(handle: link.handle, longTermKey: longTermKey(for: request, io: &io)), io: &io)
        default:
            break
        }
    }

    /// The key for an LE Long Term Key Request: the one just paired, else the bond's (LE Secure
    /// Connections keys have random number and EDIV zero; anything else is a legacy key this
    /// host never made). Nil: a negative reply, and the central must pair.
    mutating func longTermKey<IO: LEHostIO>(for request: LELongTermKeyRequest, io: inout IO) -> FixedBytes<16>? {
        guard request.randomNumber == 0, request.encryptedDiversifier == 0, let link = connection else { return nil }
        if let fresh = link.security.pairedKey { return fresh }
        return io.bonds.bond(with: link.peer)?.longTermKey
    }

    mutating func connected<IO: LEHostIO>(status: UInt8, handle: UInt16, role: UInt8, peer: LEAddress,
                                          interval: UInt16, latency: UInt16, timeout: UInt16, io: inout IO) {
        advertising = false
        guard status == 0 else {
            // Advertising ended without a link (e.g. a directed advertising timeout): start again.
            restartAdvertising(io: &io)
            return
        }
        // A link only once advertising was asked for (a controller that reports one earlier, or a
        // second one, or one as central, is not this host's); the controller keeps it until it drops.
        guard role == 1, connection == nil, phase == .running || bringUp.step == .enableAdvertising else {
            io.report(LEHostEvent<Source.WriteEffect>.dropped(.unexpectedConnection(handle)))
            return
        }
        connection = LEConnection(handle: handle, peer: peer, interval: interval, latency: latency, supervisionTimeout: timeout,
                                  attMTU: configuration.attMTU, ioCapability: configuration.ioCapability,
                                  local: LEAddress(bringUp.info.address, type: .public))
        reassembly.abandon()
        outbox.clear()
        aclCredits.linkEnded()
        io.report(LEHostEvent<Source.WriteEffect>.connected(handle: handle, peer: peer, interval: interval, latency: latency, supervisionTimeout: timeout))
        if let octets = configuration.dataLengthOctets { send(LESetDataLength(handle: handle, octets: octets), io: &io) }
    }

    mutating func restartAdvertising<IO: LEHostIO>(io: inout IO) {
        guard phase == .running else { return }
        send(LESetAdvertisingEnable(true), io: &io)
    }

    /// A command's Command Complete (or a failing Command Status), after flow control.
    mutating func commandCompleted<IO: LEHostIO>(_ opcode: HCIOpcode, status: HCIStatus, returnParameters: inout ByteCursor, io: inout IO) {
        if phase == .bringingUp {
            switch bringUp.handle(opcode, status: status, returnParameters: &returnParameters) {
            case .next(let step):
                send(bringUpCommand: step, io: &io)
            case .ignored:
                break
            case .ready(let info):
                aclCredits.configure(packetLength: min(info.aclPacketLength, LEHostMemory.transmitSize - 5), count: info.aclPacketCount)
                phase = .running
                advertising = true
                io.report(LEHostEvent<Source.WriteEffect>.ready(info))
                io.report(LEHostEvent<Source.WriteEffect>.advertising)
            case .failed(let error):
                fail(error, io: &io)
            }
            return
        }
        switch opcode {
        case .leRand where status == .success:
            guard var link = connection, let value = try? returnParameters.readUInt64LE("random number") else { return }
            let outcome = link.security.random(value)
            connection = link
            performSecurity(outcome, io: &io)
        case .leRand, .leReadLocalP256PublicKey, .leGenerateDHKey:
            // The controller cannot do the pairing's crypto: pairing fails, the link stays. A
            // controller may refuse an invalid public key already in its Command Status.
            io.report(LEHostEvent<Source.WriteEffect>.controllerError(.controllerRefused(opcode, status)))
            guard var link = connection, link.security.isPairing else { return }
            let outcome = opcode == .leGenerateDHKey && status == .invalidParameters
                ? link.security.generatedDHKey(nil) : link.security.controllerFailed()
            connection = link
            performSecurity(outcome, io: &io)
        case .leSetDataLength where status == .unknownCommand || status == .unsupportedFeature:
            break  // the controller does not offer Data Length: the link keeps 27-octet packets
        case .leSetAdvertisingEnable:
            // Command Disallowed: the controller already advertises or a link came up first.
            if status == .success {
                advertising = true
                io.report(LEHostEvent<Source.WriteEffect>.advertising)
            } else if status != .commandDisallowed {
                io.report(LEHostEvent<Source.WriteEffect>.controllerError(.controllerRefused(opcode, status)))
            }
        default:
            if status != .success { io.report(LEHostEvent<Source.WriteEffect>.controllerError(.controllerRefused(opcode, status))) }
        }
    }

    mutating func encryptionChanged<IO: LEHostIO>(_ event: EncryptionChange, io: inout IO) {
        guard var link = connection else { return }
        link.encrypted = event.status == .success && event.enabled != 0
        let bond = link.security.encryptionChanged(on: link.encrypted, peer: link.peer)
        connection = link
        if link.encrypted { io.report(LEHostEvent<Source.WriteEffect>.encrypted(handle: link.handle)) }
        if let bond {
            pairingGuard.succeeded()
            let saved = io.bonds.save(bond)
            io.report(LEHostEvent<Source.WriteEffect>.bonded(bond, saved: saved))
        }
    }
}
