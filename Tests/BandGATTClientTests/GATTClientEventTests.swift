import BandATT
import BandGATT
import BandGATTClient
import BandLink
import BandTestSupport
import BandWire
import Testing

/// Notifications and indications: dispatched in order whenever they arrive, confirmed when they
/// must be, never lost while a request waits.
@Suite struct GATTClientEventTests {
    final class Recorder {
        var events: [(GATTValueEvent.Kind, UInt16, [UInt8])] = []
        func attach(to client: GATTClient) {
            client.eventHandler = { [unowned self] event in
                events.append((event.kind, event.handle, Array(event.value)))
            }
        }
    }

    @Test func notificationArrivingWhileAReadWaitsIsDispatchedAndTheReadCompletes() throws {
        let peer = try ScriptedATTPeer([
            .expect("0a 0b 00"),
            .send("1b 08 00 00 48"),        // heart rate 72 arrives before the response
            .send("1b 08 00 00 49"),
            .send("0b 02"),
        ])
        let client = GATTClient(bearer: peer.client)
        let recorder = Recorder()
        recorder.attach(to: client)
        #expect(try client.read(0x000B) == [0x02])
        #expect(recorder.events.map(\.2) == [[0x00, 0x48], [0x00, 0x49]])
        #expect(recorder.events.allSatisfy { $0.0 == .notification && $0.1 == 0x0008 })
        #expect(peer.finish() == [])
    }

    @Test func indicationIsConfirmedAfterTheHandlerRan() throws {
        let peer = try ScriptedATTPeer([.send("1d 20 00 01 02"), .expect("1e")])
        let client = GATTClient(bearer: peer.client)
        let recorder = Recorder()
        recorder.attach(to: client)
        #expect(try client.processEvents(timeout: .seconds(2)))
        #expect(recorder.events.count == 1)
        #expect(recorder.events.first?.0 == .indication)
        #expect(peer.finish() == [])
    }

    @Test func indicationDuringARequestIsConfirmedBeforeTheResponseIsAwaitedFurther() throws {
        let peer = try ScriptedATTPeer([
            .expect("0a 0b 00"),
            .send("1d 20 00 05"),
            .expect("1e"),                  // the confirmation is not held back by the pending read
            .send("0b 07"),
        ])
        let client = GATTClient(bearer: peer.client)
        let recorder = Recorder()
        recorder.attach(to: client)
        #expect(try client.read(0x000B) == [0x07])
        #expect(recorder.events.map(\.2) == [[0x05]])
        #expect(peer.finish() == [])
    }

    @Test func malformedNotificationIsDroppedAndCountedAndLaterOnesStillArrive() throws {
        let peer = try ScriptedATTPeer([
            .send("1b 08"),                 // handle cut short
            .send("1b 00 00 01"),           // reserved handle 0x0000
            .send("1b 08 00 00 50"),
        ])
        let client = GATTClient(bearer: peer.client)
        let recorder = Recorder()
        recorder.attach(to: client)
        for _ in 0..<3 { try client.processEvents(timeout: .seconds(2)) }
        #expect(client.statistics.droppedMalformed == 2)
        #expect(recorder.events.map(\.2) == [[0x00, 0x50]])
        #expect(peer.finish() == [])
    }

    @Test func multipleHandleValueNotificationDispatchesEachValue() throws {
        let peer = try ScriptedATTPeer([.send("23 08 00 02 00 00 48 0e 00 01 00 63")])
        let client = GATTClient(bearer: peer.client)
        let recorder = Recorder()
        recorder.attach(to: client)
        try client.processEvents(timeout: .seconds(2))
        #expect(recorder.events.map(\.1) == [0x0008, 0x000E])
        #expect(recorder.events.map(\.2) == [[0x00, 0x48], [0x63]])
        #expect(peer.finish() == [])
    }

    @Test func handlerCannotStartARequest() throws {
        let peer = try ScriptedATTPeer([.send("1b 08 00 00 48")])
        let client = GATTClient(bearer: peer.client)
        var refusal: GATTError?
        client.eventHandler = { _ in
            do throws(GATTError) { _ = try client.read(0x0001) } catch { refusal = error }
        }
        try client.processEvents(timeout: .seconds(2))
        #expect(refusal == .requestFromEventHandler(attempted: .readRequest))
        #expect(peer.finish() == [])
    }

    @Test func processEventsReturnsFalseWhenNothingArrives() throws {
        let peer = try ScriptedATTPeer([])
        let client = GATTClient(bearer: peer.client)
        #expect(try client.processEvents(timeout: .milliseconds(20)) == false)
        #expect(peer.finish() == [])
    }

    @Test func hangUpWhileWaitingForEventsIsLinkClosed() throws {
        let peer = try ScriptedATTPeer([.hangUp])
        let client = GATTClient(bearer: peer.client)
        #expect(throws: GATTError.link(.closed)) { try client.processEvents(timeout: .seconds(2)) }
        #expect(peer.finish() == [])
    }
}
