import BandHCI
import BandLEHost
import BandTestSupport
import BandWire
import Testing

/// Controller bring-up as a scripted exchange: each command the host writes, the controller's
/// answer, and what a controller may answer instead.
@Suite struct ControllerBringUpTests {
    @Test func wholeSequenceThenAdvertising() {
        var host = ScriptedHost()
        host.start()
        for (command, answer) in ScriptedHost.bringUpScript() {
            #expect(host.takeSent() == [compact(command)])
            #expect(host.host.phase == .bringingUp)
            host.controller(answer)
        }
        #expect(host.takeSent() == [])
        #expect(host.host.phase == .running)
        let events = host.takeEvents()
        guard case .ready(let info)? = events.first else { Issue.record("no ready event: \(events)"); return }
        #expect(info.version.hciVersion == 0x0D && info.version.companyIdentifier == 0x005F)
        #expect(info.address == BluetoothAddress(0x1122_3344_5566))
        #expect(info.aclPacketLength == 27 && info.aclPacketCount == 3)
        #expect(host.host.aclCredits.available == 3)
        #expect(events.count == 2)
        if case .advertising = events[1] {} else { Issue.record("no advertising event") }
    }

    @Test func bufferSizeV2IsUsedWhenTheControllerHasIt() {
        var host = ScriptedHost()
        host.start()
        for (command, answer) in ScriptedHost.bringUpScript().prefix(3) {
            #expect(host.takeSent() == [compact(command)])
            host.controller(answer)
        }
        #expect(host.takeSent() == [compact("01 60 20 00")])
        host.controller("04 0e 0a 01 60 20 00 fb 00 08 00 00 00")  // 251 bytes × 8, no ISO buffers
        #expect(host.takeSent() == [compact("01 09 10 00")])
        #expect(host.host.bringUp.info.aclPacketLength == 251 && host.host.bringUp.info.aclPacketCount == 8)
    }

    /// Runs the script up to `step`, then answers it with `answer`; returns the failure reported.
    func failure(at step: Int, answer: String) -> LEHostError? {
        var host = ScriptedHost()
        host.start()
        let script = ScriptedHost.bringUpScript()
        for (_, good) in script.prefix(step) { host.controller(good) }
        _ = host.takeEvents()
        host.controller(answer)
        #expect(host.host.phase == .failed)
        for event in host.takeEvents() { if case .failed(let error) = event { return error } }
        return nil
    }

    @Test func controllerErrorsStopBringUpNamingTheCommand() {
        #expect(failure(at: 0, answer: "04 0e 04 01 03 0c 03") == .controllerRefused(.reset, .hardwareFailure))
        #expect(failure(at: 2, answer: "04 0e 0c 01 03 10 00 ff ff ff ff 00 00 00 00") == .lowEnergyNotSupported)
        #expect(failure(at: 4, answer: "04 0e 07 01 02 20 00 00 00 00") == .noACLBuffers(length: 0, count: 0))
        #expect(failure(at: 7, answer: "04 0e 04 01 01 20 12") == .controllerRefused(.leSetEventMask, .invalidParameters))
        #expect(failure(at: 11, answer: "04 0e 04 01 0a 20 0c") == .controllerRefused(.leSetAdvertisingEnable, .commandDisallowed))
        // A Command Status with an error for a command that expects Command Complete.
        #expect(failure(at: 5, answer: "04 0f 04 01 01 09 10") == .controllerRefused(.readBDADDR, .unknownCommand))
    }

    @Test func returnParametersCutAtEveryOffsetAreReportedNotTrusted() {
        // Read Local Version's 8 return bytes, cut to 0…7.
        for keep in 0..<8 {
            let parameters = bytes("01 01 10 00") + Array(bytes("0d 00 00 0d 5f 00 00 00").prefix(keep))
            let answer = "04 0e " + Hex.encode([UInt8(parameters.count)]) + " " + Hex.encode(parameters)
            guard case .malformedReturnParameters(let opcode, let error)? = failure(at: 1, answer: answer) else {
                Issue.record("cut at \(keep) not reported"); continue
            }
            #expect(opcode == .readLocalVersionInformation && error.kind == .truncated)
        }
    }

    @Test func eventsCutAtEveryOffsetAreDroppedWithTheirCode() {
        // A Command Complete whose parameter length claims more than the packet carries is
        // impossible on H4 (the decoder cuts at the length); inside the parameters, the host
        // reads only what is there. Cut the LE Connection Complete's parameters at every offset.
        let full = bytes(ScriptedHost.connectionComplete)
        for keep in 0..<(full.count - 3) {
            var host = ScriptedHost()
            host.bringUp()
            let parameters = Array(full[3..<(3 + keep)])
            host.controller(raw: [0x04, 0x3e, UInt8(parameters.count)] + parameters)
            let events = host.takeEvents()
            if keep == 0 {
                #expect(events.count == 1, "empty LE Meta")
            }
            #expect(host.host.connection == nil)
            guard case .dropped(.malformedEvent(let code, let error))? = events.first else { Issue.record("cut at \(keep): \(events)"); continue }
            #expect(code == .leMeta && error.kind == .truncated)
        }
    }

    @Test func aSilentControllerTimesOut() {
        var host = ScriptedHost()
        host.start()
        _ = host.takeSent()
        host.host.tick(now: 1_999, io: &host.io)
        #expect(host.host.phase == .bringingUp)
        host.host.tick(now: 2_000, io: &host.io)
        #expect(host.host.phase == .failed)
        guard case .failed(.controllerTimedOut(let opcode))? = host.takeEvents().first else { Issue.record("no timeout"); return }
        #expect(opcode == .reset)
    }

    @Test func commandFlowControlWaitsForCredits() {
        var host = ScriptedHost()
        host.start()
        #expect(host.takeSent() == [compact("01 03 0c 00")])
        // The Reset's Command Complete allows no further command: nothing is sent …
        host.controller("04 0e 04 00 03 0c 00")
        #expect(host.takeSent() == [])
        // … until a Command Complete with opcode 0 (a NOP) gives a credit back.
        host.controller("04 0e 03 01 00 00")
        #expect(host.takeSent() == [compact("01 01 10 00")])
    }

    @Test func hardwareErrorBringsTheControllerUpAgain() {
        var host = ScriptedHost()
        host.bringUp()
        host.connect()
        host.controller("04 10 01 07")
        #expect(host.host.phase == .bringingUp)
        #expect(host.host.connection == nil)
        #expect(host.takeSent() == [compact("01 03 0c 00")])
        guard case .controllerError(.hardwareError(7))? = host.takeEvents().first else { Issue.record("no hardware error"); return }
    }

    @Test func lateOrForeignCommandCompletesAreIgnored() {
        var host = ScriptedHost()
        host.start()
        _ = host.takeSent()
        // A Command Complete for a command the host never sent changes nothing but the credits.
        host.controller("04 0e 04 01 03 20 00")
        #expect(host.takeSent() == [])
        #expect(host.host.phase == .bringingUp && host.host.bringUp.step == .reset)
        host.controller("04 0e 04 01 03 0c 00")
        #expect(host.takeSent() == [compact("01 01 10 00")])
    }

    @Test func aConnectionBeforeAdvertisingWasAskedForIsNotTaken() {
        // Found by fuzz/lehost: an LE Connection Complete during bring-up made a link the
        // host then served while still bringing the controller up.
        var host = ScriptedHost()
        host.start()
        host.controller(ScriptedHost.connectionComplete)
        #expect(host.host.connection == nil)
        guard case .dropped(.unexpectedConnection(0x40))? = host.takeEvents().first else { Issue.record("not reported"); return }
        // Once the enable is out, the controller may report the link before its Command Complete.
        for (_, answer) in ScriptedHost.bringUpScript().dropLast() { host.controller(answer) }
        host.controller(ScriptedHost.connectionComplete)
        #expect(host.host.connection?.handle == 0x40)
    }
}
