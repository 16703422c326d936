import BandATT
import BandLink
import BandReplay
import BandTestSupport
import BandTrace
import BandWire
import Foundation
import Testing

/// Serves `recording`'s preferred side on one end of a socketpair; returns the client end and the run.
private func serve(_ recording: TraceRecording, speed: ReplaySpeed) throws -> (SeqPacketLink, BackgroundRun<ReplayServeSession.Summary>) {
    let side = try #require(recording.side())
    let session = ReplayServeSession(database: recording.database(side), timeline: recording.timeline(side), speed: speed)
    let (client, server) = try SeqPacketLink.pair()
    let box = Unchecked((session, server))
    let run = BackgroundRun { try box.value.0.run(on: box.value.1) }
    return (client, run)
}

@Test func aRecordedStrapIsServedAndItsNotificationsComeBackInOrderAfterTheCCCDWrites() throws {
    let (path, _) = try ReplayFixtures.syntheticHeartRateTrace(notifications: 50)
    let (recording, outcome) = try ReplayFixtures.record(path)
    #expect(outcome.stoppedAt == nil)
    let side = try #require(recording.side())
    #expect(side.server == .remoteDevice)
    let recorded = recording.timeline(side).pushes.map { push in
        [push.isIndication ? 0x1D : 0x1B, UInt8(push.handle & 0xFF), UInt8(push.handle >> 8)] + recording.timeline(side).value(of: push)
    }

    let (link, run) = try serve(recording, speed: .max)
    let client = ScriptedClient(link: link)
    var pushes: [[UInt8]] = []
    #expect(try client.ask("02f700", pushes: &pushes) == "03b900")
    link.mtu = 0xB9
    #expect(try client.ask("100100ffff0028", pushes: &pushes) == "1106010003000018100017000d18200023000f18300033001418")
    #expect(try client.ask("0a0300", pushes: &pushes) == "0b" + Hex.encode(Array("BandKit Band".utf8)))
    #expect(try client.ask("0a1200", pushes: &pushes) == "010a120002", "notify-only: Read Not Permitted")
    for cccd in ["1300", "2300", "3300", "4300"] {
        #expect(try client.ask("12\(cccd)0100", pushes: &pushes) == "13")
    }
    #expect(try client.ask("12170001", pushes: &pushes) == "13", "control point accepts writes")
    #expect(try client.ask("12170002", pushes: &pushes) == "13")
    pushes += try receiveUntilHangUp(link)
    let summary = try run.wait()
    #expect(pushes == recorded)
    #expect(summary.notificationsSent == recorded.count)
    #expect(summary.skippedUnsubscribed == 0)
    #expect(summary.gatesTimedOut == 0)
}

@Test func notificationsForCharacteristicsTheReaderDidNotSubscribeToAreNotSent() throws {
    let (path, _) = try ReplayFixtures.syntheticHeartRateTrace(notifications: 30)
    let (recording, _) = try ReplayFixtures.record(path)
    let side = try #require(recording.side())
    var session = ReplayServeSession(database: recording.database(side), timeline: recording.timeline(side), speed: .max,
                                     gateTimeout: .milliseconds(200))
    let (link, server) = try SeqPacketLink.pair()
    let box = Unchecked((session, server))
    let run = BackgroundRun { try box.value.0.run(on: box.value.1) }
    session = box.value.0
    let client = ScriptedClient(link: link)
    var pushes: [[UInt8]] = []
    #expect(try client.ask("12130001 00".replacingOccurrences(of: " ", with: ""), pushes: &pushes) == "13")
    pushes += try receiveUntilHangUp(link)
    let summary = try run.wait()
    #expect(Set(pushes.map { UInt16($0[1]) | UInt16($0[2]) << 8 }) == [SyntheticHeartRateTrace.heartRateMeasurementHandle])
    #expect(summary.sentPerHandle == [SyntheticHeartRateTrace.heartRateMeasurementHandle: 30])
    #expect(summary.skippedUnsubscribed == recording.timeline(side).count - 30)
}

@Test func recordedGapsAreKeptLiveIncludingSubMillisecondOnes() throws {
    // A strap that notifies at 0, +30 ms, +30.4 ms, +80 ms after its CCCD is written.
    var database = RecordedGATTDatabase(
        services: [RecordedService(handle: 1, endGroupHandle: 4, uuid: BluetoothUUID(0x180D))],
        characteristics: [RecordedCharacteristic(handle: 2, properties: .notify, valueHandle: 3, uuid: BluetoothUUID(0x2A37))],
        descriptors: [RecordedDescriptor(handle: 4, uuid: BluetoothUUID(0x2902))])
    database.serverMTU = 23
    var timeline = NotificationTimeline()
    let t0: Int64 = 1_764_460_800_000_000
    timeline.connected(at: t0)
    timeline.clientWrote(handle: 4, at: t0 + 10_000)
    for (i, offset) in [0, 30_000, 30_400, 80_000].enumerated() {
        [0x06, UInt8(60 + i)].withUnsafeBytes { timeline.serverPushed(handle: 3, value: $0, isIndication: false, at: t0 + 10_000 + Int64(offset)) }
    }
    timeline.disconnected(at: t0 + 100_000)
    let session = ReplayServeSession(database: database, timeline: timeline, speed: .realTime)
    let (link, server) = try SeqPacketLink.pair()
    let box = Unchecked((session, server))
    let run = BackgroundRun { try box.value.0.run(on: box.value.1) }

    try link.send(bytes("12 04 00 01 00"))
    let written = ContinuousClock.now
    #expect(try link.receive(timeout: .seconds(5)) == bytes("13"))
    var arrivals: [ContinuousClock.Instant] = []
    let pdus = try receiveUntilHangUp(link) { _ in arrivals.append(.now) }
    #expect(pdus.allSatisfy { $0.count == 5 && $0[0] == 0x1B })
    _ = try run.wait()
    #expect(arrivals.count == 4)
    // Never early: each notification arrives no sooner than its recorded offset from the write.
    for (arrival, offset) in zip(arrivals, [0, 30_000, 30_400, 80_000]) {
        #expect(arrival - written >= .microseconds(offset), "arrived \(arrival - written) after the write, recorded \(offset) µs")
    }
    // The 0.4 ms gap is not stretched to poll()'s millisecond (generous bound for a loaded machine).
    #expect(arrivals[2] - arrivals[1] < .milliseconds(20))
}

@Test func theRealMiBandCaptureServesItsDiscoveredDatabase() throws {
    guard let path = ReplayFixtures.capture("miband2_ec521_btsnoop_hci.log") else {
        print("skipping: ../shared/captures/miband2_ec521_btsnoop_hci.log is not beside the repository")
        return
    }
    let (recording, outcome) = try ReplayFixtures.record(path)
    #expect(outcome.stoppedAt == nil && outcome.skippedCount == 0)
    let side = try #require(recording.side())
    let database = recording.database(side)
    #expect(database.services.map(\.uuid).contains(BluetoothUUID(0x180D)))
    let heartRate = try #require(database.characteristics.first { $0.uuid == BluetoothUUID(0x2A37) })
    #expect(heartRate.valueHandle == 0x0029)
    #expect(heartRate.properties.contains(.notify))
    #expect(database.characteristics.first { $0.uuid == BluetoothUUID(0x2A39) }?.valueHandle == 0x002C)

    let server = ReplayServer(database: database, serverMTU: database.serverMTU ?? 23)
    var output = [UInt8](repeating: 0, count: 517)
    let request = bytes("10 01 00 ff ff 00 28")
    let length = request.withUnsafeBytes { raw in
        output.withUnsafeMutableBytes { server.server.handle(raw, source: &server.source, into: $0).responseLength }
    }
    #expect(output[0] == 0x11 && length > 2, "primary service discovery answered from the capture")
}

@Test func theRealDSD6CaptureReplaysItsWriteCommandNotificationPairsInOrder() throws {
    guard let path = ReplayFixtures.capture("dsd6_btsnoop_hci_3.log") else {
        print("skipping: ../shared/captures/dsd6_btsnoop_hci_3.log is not beside the repository")
        return
    }
    let (recording, outcome) = try ReplayFixtures.record(path)
    #expect(outcome.stoppedAt == nil && outcome.skippedCount == 0)
    let side = try #require(recording.side())
    let timeline = recording.timeline(side)
    #expect(timeline.count > 50)
    #expect(timeline.pushes.allSatisfy { $0.gate != nil }, "every notification followed a client write")
}
