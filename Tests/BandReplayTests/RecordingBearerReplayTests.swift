import BandATT
import BandLink
import BandReader
import BandReplay
import BandTestSupport
import BandTrace
import BandWire
import Foundation
import Testing

private let reader = LEAddress(BluetoothAddress(0x00_1A_7D_DA_71_13), type: .public)
private let strapAddress = LEAddress(BluetoothAddress(0xD5_42_A7_10_B3_0C), type: .random)

/// Replays a synthetic strap to a scripted reader with both ends recorded; returns the two traces.
private func recordBothEnds(datalink: BtsnoopDatalink) throws -> (central: String, peripheral: String, pushes: [[UInt8]]) {
    let (path, _) = try ReplayFixtures.syntheticHeartRateTrace(notifications: 40)
    let (recording, _) = try ReplayFixtures.record(path)
    let side = try #require(recording.side())
    let session = ReplayServeSession(database: recording.database(side), timeline: recording.timeline(side), speed: .max)
    let (clientEnd, serverEnd) = try SeqPacketLink.pair()
    let centralPath = ReplayFixtures.temporaryPath("central.log")
    let peripheralPath = ReplayFixtures.temporaryPath("peripheral.log")
    let client = try RecordingBearer(recording: clientEnd, to: centralPath, datalink: datalink, vantage: .central, peer: strapAddress, policy: .failLink)
    let server = try RecordingBearer(recording: serverEnd, to: peripheralPath, datalink: datalink, vantage: .peripheral, peer: reader, policy: .failLink)
    let box = Unchecked((session, server))
    let run = BackgroundRun { try box.value.0.run(on: box.value.1) }

    var pushes: [[UInt8]] = []
    let script = ScriptedClient(link: client)
    _ = try script.ask("02f700", pushes: &pushes)
    client.mtu = 0xB9
    _ = try script.ask("100100ffff0028", pushes: &pushes)
    _ = try script.ask("0a0300", pushes: &pushes)
    for cccd in ["1300", "2300", "3300", "4300"] { _ = try script.ask("12\(cccd)0100", pushes: &pushes) }
    for control in ["12170001", "12170002"] { _ = try script.ask(control, pushes: &pushes) }
    pushes += try receiveUntilHangUp(client)
    _ = try run.wait()
    client.close()
    #expect(client.failure == nil && server.failure == nil)
    return (centralPath, peripheralPath, pushes)
}

@Test(arguments: [BtsnoopDatalink.h4, .linuxMonitor])
func bothEndsOfAServedSessionRecordTheSameConversationFromOppositeSides(datalink: BtsnoopDatalink) throws {
    let (centralPath, peripheralPath, pushes) = try recordBothEnds(datalink: datalink)
    let (central, centralOutcome) = try ReplayFixtures.record(centralPath)
    let (peripheral, peripheralOutcome) = try ReplayFixtures.record(peripheralPath)
    #expect(centralOutcome.stoppedAt == nil && peripheralOutcome.stoppedAt == nil)
    #expect(centralOutcome.attPDUs == peripheralOutcome.attPDUs)

    // Recorded by the reader, the strap is the remote device; recorded by the strap, it is the host.
    let centralSide = try #require(central.side())
    let peripheralSide = try #require(peripheral.side())
    #expect(centralSide.server == .remoteDevice)
    #expect(peripheralSide.server == .recordingHost)
    #expect(central.peers[centralSide.connection] == strapAddress)
    #expect(peripheral.peers[peripheralSide.connection] == reader)
    #expect(central.database(centralSide) == peripheral.database(peripheralSide))
    #expect(central.database(centralSide).services.count == 4, "what the scripted reader discovered")

    let recordedPushes = central.timeline(centralSide).pushes.map { push in
        [0x1B, UInt8(push.handle & 0xFF), UInt8(push.handle >> 8)] + central.timeline(centralSide).value(of: push)
    }
    #expect(recordedPushes == pushes)
    #expect(peripheral.timeline(peripheralSide).count == pushes.count)
}

@Test func recordedTimestampsAreTheClockAtEachPDUAndDirectionsFollowTheHost() throws {
    var now: Int64 = 1_764_460_800_000_000
    let (a, b) = try SeqPacketLink.pair()
    let path = ReplayFixtures.temporaryPath("clock.log")
    let recorder = try RecordingBearer(recording: a, to: path, vantage: .central, peer: strapAddress, policy: .failLink, clock: { now })
    now += 1_500
    try recorder.send(bytes("0a 03 00"))
    #expect(try b.receive(timeout: .seconds(1)) == bytes("0a 03 00"))
    try b.send(bytes("0b 41"))
    now += 250
    #expect(try recorder.receive(timeout: .seconds(1)) == bytes("0b 41"))
    now += 10
    recorder.close()
    #expect(recorder.recordedPDUs == 2)

    let bytesOnDisk = try Data(contentsOf: URL(fileURLWithPath: path))
    var times: [Int64] = []
    var kinds: [String] = []
    try Array(bytesOnDisk).withUnsafeBytes { raw in
        var source = try BtsnoopMemoryReader(bytes: raw)
        let extractor = ATTExtractor()
        while let record = try source.next() {
            times.append(record.unixMicroseconds)
            switch extractor.process(record, datalink: source.datalink).event {
            case .att(let event)?: kinds.append("\(event.direction) \(Hex.encode(event.pdu))")
            case .connection(let change)?: kinds.append("\(change.change)")
            case nil: kinds.append("-")
            }
        }
    }
    #expect(times == [1_764_460_800_000_000, 1_764_460_800_001_500, 1_764_460_800_001_750, 1_764_460_800_001_760])
    #expect(kinds.count == 4)
    #expect(kinds[1] == "tx 0a0300")
    #expect(kinds[2] == "rx 0b41")
    #expect(kinds[3].hasPrefix("disconnected"))
}

@Test func aPDUThatFailsToSendIsNotRecorded() throws {
    let (a, b) = try SeqPacketLink.pair()
    let path = ReplayFixtures.temporaryPath("unsent.log")
    let recorder = try RecordingBearer(recording: a, to: path, vantage: .central, peer: strapAddress, policy: .failLink)
    b.close()
    #expect(throws: LinkError.self) { try recorder.send(bytes("0a 03 00")) }
    recorder.close()
    #expect(recorder.recordedPDUs == 0)
}

@Test func anUnwritableTracePathFailsAtOnceWithThePath() throws {
    let (a, _) = try SeqPacketLink.pair()
    #expect(throws: LinkError.system(call: "open /nonexistent-dir/x.log", errno: ENOENT)) {
        _ = try RecordingBearer(recording: a, to: "/nonexistent-dir/x.log", vantage: .central, peer: strapAddress, policy: .failLink)
    }
}

@Test func reconnectionsRecordIntoOneFileAsSeparateConnections() throws {
    let path = ReplayFixtures.temporaryPath("reconnects.log")
    let file = try TraceFile(path: path)
    for value: UInt8 in [0x41, 0x42] {
        let (a, b) = try SeqPacketLink.pair()
        let recorder = try file.record(a, vantage: .central, peer: strapAddress, policy: .failLink)
        try recorder.send(bytes("0a 03 00"))
        _ = try b.receive(timeout: .seconds(1))
        try b.send([0x0B, value])
        _ = try recorder.receive(timeout: .seconds(1))
        recorder.close()
        #expect(recorder.failure == nil)
    }
    try file.close()

    let (recording, outcome) = try ReplayFixtures.record(path)
    #expect(outcome.stoppedAt == nil)
    let first = ATTServerSide(connection: TraceConnection(handle: 0x40), server: .remoteDevice)
    let second = ATTServerSide(connection: TraceConnection(handle: 0x41), server: .remoteDevice)
    #expect(recording.database(first).values == [3: RecordedValue(bytes: [0x41])])
    #expect(recording.database(second).values == [3: RecordedValue(bytes: [0x42])])
    #expect(recording.peers[first.connection] == strapAddress && recording.peers[second.connection] == strapAddress)
}

@Test func aBandAddressBecomesThePeerOfTheRecordedConnection() throws {
    let band = try BandAddress(parsing: "C8:0F:10:12:34:56", random: true)
    let peer = band.recordedPeer
    #expect(peer.type == .random)
    #expect("\(peer.address)" == "C8:0F:10:12:34:56", "the same text the reader files the band under")
    #expect(try BandAddress(parsing: "sim:/tmp/band.sock").recordedPeer == LEAddress(.any, type: .public))
}
