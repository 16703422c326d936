import BandATT
import BandGATT
import BandGATTClient
import BandLink
import BandTestSupport
import BandWire
import Testing

/// One request in flight, responses matched to requests, the transaction timeout, and what the
/// client does with PDUs that arrive out of turn.
@Suite struct GATTClientTransactionTests {
    @Test func exchangeMTUAdoptsTheSmallerOfBothReceiveMTUs() throws {
        let peer = try ScriptedATTPeer([.expect("02 05 02"), .send("03 b9 00")])
        let client = GATTClient(bearer: peer.client)
        #expect(try client.exchangeMTU() == 185)
        #expect(peer.client.mtu == 185)
        #expect(peer.finish() == [])
    }

    @Test func exchangeMTUNotSupportedKeepsTheDefault23() throws {
        let peer = try ScriptedATTPeer([.expect("02 05 02"), .send("01 02 00 00 06")])
        let client = GATTClient(bearer: peer.client)
        #expect(try client.exchangeMTU() == 23)
        #expect(peer.finish() == [])
    }

    @Test func errorResponseIsSurfacedAsTypedErrorWithHandleAndCode() throws {
        let peer = try ScriptedATTPeer([.expect("0a 2a 00"), .send("01 0a 2a 00 05")])
        let client = GATTClient(bearer: peer.client)
        #expect(throws: GATTError.attError(request: .readRequest, handle: 0x002A, code: .insufficientAuthentication)) {
            try client.read(0x002A)
        }
        #expect(client.isUsable, "an Error Response ends one procedure, not the bearer")
        #expect(peer.finish() == [])
    }

    @Test func onlyOneRequestIsInFlightUntilItsResponseArrives() throws {
        let peer = try ScriptedATTPeer([
            .expect("0a 01 00"), .silence(.milliseconds(100)), .send("0b 11"),
            .expect("0a 02 00"), .send("0b 22"),
        ])
        let client = GATTClient(bearer: peer.client)
        #expect(try client.read(0x0001) == [0x11])
        #expect(try client.read(0x0002) == [0x22])
        #expect(peer.finish() == [])
    }

    @Test func silentServerHitsTheTransactionTimeoutAndTheBearerIsClosed() throws {
        let peer = try ScriptedATTPeer([.expect("0a 08 00"), .expectClose(within: .seconds(2))])
        let client = GATTClient(bearer: peer.client, transactionTimeout: .milliseconds(150))
        let started = ContinuousClock.now
        #expect(throws: GATTError.transactionTimeout(request: .readRequest, after: .milliseconds(150))) {
            try client.read(0x0008)
        }
        #expect(ContinuousClock.now - started >= .milliseconds(150))
        #expect(!client.isUsable)
        // §3.3.3: no further PDU on this bearer; the next procedure fails without sending.
        #expect(throws: GATTError.self) { try client.read(0x0008) }
        #expect(peer.finish() == [])
    }

    @Test func responseOfTheWrongKindIsAProtocolViolationThatClosesTheBearer() throws {
        let peer = try ScriptedATTPeer([.expect("0a 08 00"), .send("13"), .expectClose(within: .seconds(2))])
        let client = GATTClient(bearer: peer.client)
        do {
            _ = try client.read(0x0008)
            Issue.record("a Write Response to a Read Request was accepted")
        } catch {
            guard case .protocolViolation = error else { Issue.record("got \(error)"); return }
        }
        #expect(!client.isUsable)
        #expect(peer.finish() == [])
    }

    @Test func errorResponseNamingAnotherRequestIsAProtocolViolation() throws {
        let peer = try ScriptedATTPeer([.expect("0a 08 00"), .send("01 12 08 00 03"), .expectClose(within: .seconds(2))])
        let client = GATTClient(bearer: peer.client)
        do {
            _ = try client.read(0x0008)
            Issue.record("accepted an Error Response for a Write Request while a Read Request was outstanding")
        } catch {
            guard case .protocolViolation = error else { Issue.record("got \(error)"); return }
        }
        #expect(peer.finish() == [])
    }

    @Test func responseWithNoRequestOutstandingIsAProtocolViolation() throws {
        let peer = try ScriptedATTPeer([.send("0b 01 02"), .expectClose(within: .seconds(2))])
        let client = GATTClient(bearer: peer.client)
        do {
            try client.processEvents(timeout: .seconds(2))
            Issue.record("a stray Read Response was accepted")
        } catch {
            guard case .protocolViolation = error else { Issue.record("got \(error)"); return }
        }
        #expect(peer.finish() == [])
    }

    @Test func malformedResponseFailsTheProcedureWithTheOffset() throws {
        // Exchange MTU Response one byte short.
        let peer = try ScriptedATTPeer([.expect("02 05 02"), .send("03 b9")])
        let client = GATTClient(bearer: peer.client)
        #expect(throws: GATTError.malformedResponse(request: .exchangeMTURequest, ParseError(.truncated, at: 1, field: "Server Rx MTU"))) {
            try client.exchangeMTU()
        }
        #expect(peer.finish() == [])
    }

    @Test func disconnectWhileARequestWaitsFailsWithLinkClosed() throws {
        let peer = try ScriptedATTPeer([.expect("0a 08 00"), .hangUp])
        let client = GATTClient(bearer: peer.client)
        #expect(throws: GATTError.link(.closed)) { try client.read(0x0008) }
        #expect(!client.isUsable)
        #expect(peer.finish() == [])
    }

    @Test func requestFromTheServerIsRefusedAndThePendingReadStillCompletes() throws {
        let peer = try ScriptedATTPeer([
            .expect("0a 08 00"),
            .send("0a 03 00"),              // the server's client role reads our handle 3
            .expect("01 0a 00 00 06"),      // Request Not Supported: we hold no attributes
            .send("0b 48"),
        ])
        let client = GATTClient(bearer: peer.client)
        #expect(try client.read(0x0008) == [0x48])
        #expect(client.statistics.requestsRefused == 1)
        #expect(peer.finish() == [])
    }

    @Test func commandFromTheServerIsDiscardedSilently() throws {
        let peer = try ScriptedATTPeer([.expect("0a 08 00"), .send("52 03 00 01"), .send("0b 48")])
        let client = GATTClient(bearer: peer.client)
        #expect(try client.read(0x0008) == [0x48])
        #expect(client.statistics.unexpectedIgnored == 1)
        #expect(peer.finish() == [])
    }

    @Test func writeRequestWaitsForTheWriteResponse() throws {
        let peer = try ScriptedATTPeer([.expect("12 10 00 01 02 03"), .send("13")])
        let client = GATTClient(bearer: peer.client)
        try client.write([1, 2, 3], to: 0x0010)
        #expect(peer.finish() == [])
    }

    @Test func writeCommandSendsWithoutWaiting() throws {
        let peer = try ScriptedATTPeer([.expect("52 10 00 aa"), .expect("0a 08 00"), .send("0b 01")])
        let client = GATTClient(bearer: peer.client)
        try client.writeWithoutResponse([0xAA], to: 0x0010)
        #expect(try client.read(0x0008) == [0x01])
        #expect(peer.finish() == [])
    }

    @Test func valueLongerThanOnePDUIsRefusedWithoutSending() throws {
        let peer = try ScriptedATTPeer([])
        let client = GATTClient(bearer: peer.client)
        #expect(throws: GATTError.valueTooLong(length: 21, limit: 20)) {
            try client.write([UInt8](repeating: 7, count: 21), to: 0x0010)
        }
        #expect(client.isUsable)
        #expect(peer.finish() == [])
    }
}
