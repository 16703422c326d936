import BandATT
import BandGATT
import BandTestSupport
import BandWire
import Foundation
import Testing
@testable import BandTrace

@Suite struct TraceDecoderTests {
    typealias F = TraceFixtures

    static func generate(_ configuration: SyntheticHeartRateTrace.Configuration, datalink: BtsnoopDatalink = .h4)
        throws -> (path: String, summary: SyntheticHeartRateTrace.Summary) {
        let path = F.temporaryPath("synthetic.log")
        let writer = try BtsnoopWriter(path: path, datalink: datalink)
        let summary = try SyntheticHeartRateTrace.write(configuration, to: writer)
        try writer.close()
        return (path, summary)
    }

    static func encoded(_ sample: SyntheticHeartRateTrace.HeartRateSample) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 64)
        let n = out.withUnsafeMutableBytes { raw -> Int in
            var writer = ByteWriter(raw)
            sample.encode(into: &writer)
            return writer.count
        }
        return Array(out.prefix(n))
    }

    @Test(arguments: [BtsnoopDatalink.h4, .linuxMonitor])
    func generatedTraceRoundTripsThroughWriterReaderAndDecoder(datalink: BtsnoopDatalink) throws {
        var configuration = SyntheticHeartRateTrace.Configuration()
        configuration.heartRateNotifications = 3_000
        let (path, summary) = try Self.generate(configuration, datalink: datalink)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(summary.fragmentedPDUs > 500)
        #expect(summary.advertisingReports == 1 + 1_500)

        let decoder = try TraceDecoder(path: path)
        var att = 0, heartRate = 0, connections = 0, anomalies = 0
        var byType: [String: Int] = [:]
        while let event = try decoder.next() {
            switch event {
            case .att(let e):
                att += 1
                #expect(e.error == nil)
                byType[e.type?.description ?? "none", default: 0] += 1
                if e.type == BluetoothUUID(0x2A37), e.opcode == .handleValueNotification {
                    let value = try #require(e.value)
                    let sample = SyntheticHeartRateTrace.heartRateSample(heartRate, seed: configuration.seed)
                    #expect(Array(value) == Self.encoded(sample), "notification \(heartRate)")
                    guard case .heartRateMeasurement(let hr)? = try e.characteristicValue() else {
                        Issue.record("notification \(heartRate) not decoded as Heart Rate Measurement")
                        continue
                    }
                    #expect(hr.beatsPerMinute == sample.bpm)
                    #expect(hr.energyExpended == sample.energyKilojoules)
                    #expect((hr.rrIntervals?.map(\.rawValue) ?? []) == sample.rrIntervals)
                    #expect(hr.sensorContact == (sample.contact == nil ? .notSupported : sample.contact! ? .detected : .notDetected))
                    #expect(e.trace.direction == .rx && e.trace.connection == 0x40)
                    #expect(e.trace.peer == SyntheticHeartRateTrace.band)
                    heartRate += 1
                }
            case .connection: connections += 1
            case .anomaly(let a):
                anomalies += 1
                Issue.record("unexpected anomaly: \(a)")
            }
        }
        #expect(att == summary.attPDUs)
        #expect(heartRate == 3_000)
        #expect(byType["2a53"] == 50 && byType["2a19"] == 5 + 1 + 1)
        #expect(connections == 2 && anomalies == 0)
        #expect(decoder.statistics.records == summary.records)
    }

    @Test func damagedFileDeliversEverythingBeforeTheDamageThenNamesIt() throws {
        var configuration = SyntheticHeartRateTrace.Configuration()
        configuration.heartRateNotifications = 200
        let (path, summary) = try Self.generate(configuration)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var file = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        // Cut the file in the middle of some record.
        let cut = file.count / 2
        file.removeSubrange(cut...)
        F.write(file, to: path)

        let decoder = try TraceDecoder(path: path)
        var att = 0
        do {
            while let event = try decoder.next() { if case .att = event { att += 1 } }
            Issue.record("a truncated file must not end cleanly")
        } catch {
            #expect(error.recordIndex == decoder.statistics.records)
            #expect(error.offset < cut && error.offset > cut - 100)
            if case .truncatedRecordData = error.kind {} else if case .truncatedRecordHeader = error.kind {} else {
                Issue.record("unexpected error \(error)")
            }
        }
        #expect(att > 0 && att < summary.attPDUs)
    }

    @Test func anomalyComesBeforeTheATTPDUOfTheSameRecord() throws {
        let frame = F.l2cap(bytes("1b 29 00 06 52"))
        let file = F.fileHeader()
            + F.record([0x02] + F.acl(handle: 0x40, pb: 2, Array(frame.prefix(3))), flags: 1)
            + F.record([0x02] + F.acl(handle: 0x40, pb: 2, frame), flags: 1)
        let path = F.temporaryPath("anomaly.log")
        F.write(file, to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let decoder = try TraceDecoder(path: path, overrides: [0x29: BluetoothUUID(0x2A37)])
        guard case .anomaly(let anomaly)? = try decoder.next() else { Issue.record("expected an anomaly first"); return }
        #expect(anomaly.kind == .reassembly(.incompleteFrameDiscarded(received: 3, expected: nil), connection: 0x40, direction: .rx))
        guard case .att(let att)? = try decoder.next() else { Issue.record("then the PDU"); return }
        #expect(Array(att.trace.pdu) == bytes("1b 29 00 06 52"))
        #expect(att.type == BluetoothUUID(0x2A37) && att.handle == 0x29)
        #expect(try decoder.next() == nil)
    }

    @Test func malformedPDUIsReportedInlineAndDecodingContinues() throws {
        let file = F.fileHeader()
            + F.record([0x02] + F.acl(handle: 0x40, pb: 2, F.l2cap(bytes("1b 29"))), flags: 1)
            + F.record([0x02] + F.acl(handle: 0x40, pb: 2, F.l2cap([])), flags: 1)
            + F.record([0x02] + F.acl(handle: 0x40, pb: 2, F.l2cap(bytes("1b 29 00 06 52"))), flags: 1)
        let path = F.temporaryPath("malformed.log")
        F.write(file, to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let decoder = try TraceDecoder(path: path)
        var errors: [ParseError?] = []
        while let event = try decoder.next() { if case .att(let e) = event { errors.append(e.error) } }
        #expect(errors == [ParseError(.truncated, at: 1, field: "attribute handle"), ParseError(.truncated, at: 0, field: "opcode"), nil])
        #expect(decoder.statistics.malformedPDUs == 2)
    }

    @Test func malformedCharacteristicValueIsReportedWithItsOffsetInThePDU() throws {
        let file = F.fileHeader()
            + F.record([0x02] + F.acl(handle: 0x40, pb: 2, F.l2cap(bytes("1b 22 00 96"))), flags: 1)       // battery 150 %
            + F.record([0x02] + F.acl(handle: 0x40, pb: 2, F.l2cap(bytes("1b 12 00 10 52"))), flags: 1)    // HR: RR flag set, no intervals: fine
            + F.record([0x02] + F.acl(handle: 0x40, pb: 2, F.l2cap(bytes("1b 12 00 01 52"))), flags: 1)    // HR: uint16 flag, 1 byte of value
            + F.record([0x02] + F.acl(handle: 0x40, pb: 2, F.l2cap(bytes("1b 22 00 57"))), flags: 1)
        let path = F.temporaryPath("badvalue.log")
        F.write(file, to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let decoder = try TraceDecoder(path: path, overrides: [0x22: BluetoothUUID(0x2A19), 0x12: BluetoothUUID(0x2A37)])
        var results: [String] = []
        while let event = try decoder.next() {
            guard case .att(let e) = event else { continue }
            #expect(e.error == nil)
            do {
                results.append(String(describing: try e.characteristicValue().map { "\($0)" } ?? "nil"))
            } catch {
                results.append("\(error.kind.rawValue)@\(error.offset)")
            }
        }
        #expect(results.count == 4)
        #expect(results[0] == "invalid_value@3")
        #expect(results[1].contains("beatsPerMinute: 82"))
        #expect(results[2] == "truncated@4")
        #expect(results[3].contains("87"))
    }

    @Test(arguments: [("miband2_ec521_btsnoop_hci.log", 136, 0x29 as UInt16, "2a37"), ("dsd6_btsnoop_hci_3.log", 261, 0x0B, "0002")])
    func realCapturesDecodeWithoutErrorAndLearnTheirDatabases(name: String, count: Int, handle: UInt16, uuid: String) throws {
        guard let path = F.capture(name) else {
            print("skipping: shared/captures/\(name) is not beside the repository")
            return
        }
        let decoder = try TraceDecoder(path: path)
        var att = 0
        var tables: [AttributeTable] = []
        while let event = try decoder.next() {
            switch event {
            case .att(let e):
                att += 1
                #expect(e.error == nil)
                if let table = e.trace.peer.flatMap(decoder.discovery.table(for:))
                    ?? decoder.discovery.table(adapter: e.trace.adapter, connection: e.trace.connection) {
                    tables.append(table)
                }
            case .anomaly(let a): Issue.record("\(a)")
            case .connection: break
            }
        }
        #expect(att == count)
        // As tshark learns it (btatt.uuid16 of the Read By Type Response that declares it).
        #expect(tables.contains { $0.type(of: handle)?.description == uuid })
    }

    /// What an event said, comparable between the two ways of walking a trace.
    enum Seen: Equatable {
        case att(record: Int, handle: UInt16?, type: BluetoothUUID?, error: ParseError?, pdu: [UInt8], value: CharacteristicValue?)
        case connection(ConnectionTraceEvent)
        case anomaly(TraceAnomaly)

        init(_ event: borrowing DecodedATTEvent) {
            self = .att(record: event.trace.recordIndex, handle: event.handle, type: event.type, error: event.error,
                        pdu: Array(event.trace.pdu), value: try? event.characteristicValue())
        }
    }

    struct Recorder: TraceEventHandler {
        var seen: [Seen] = []
        /// Reads the decoder's statistics from inside a call, as the handler contract allows.
        var recordsSeenByHandler: [Int] = []
        let decoder: TraceDecoder<BtsnoopFileReader>

        mutating func handle(_ event: borrowing DecodedATTEvent) throws(ParseError) {
            seen.append(Seen(event))
            recordsSeenByHandler.append(decoder.statistics.records)
        }
        mutating func handle(_ event: ConnectionTraceEvent) throws(ParseError) { seen.append(.connection(event)) }
        mutating func handle(_ anomaly: TraceAnomaly) throws(ParseError) { seen.append(.anomaly(anomaly)) }
    }

    static func stepped(_ path: String) throws -> (seen: [Seen], damage: BtsnoopError?) {
        let decoder = try TraceDecoder(path: path)
        var seen: [Seen] = []
        do {
            while let event = try decoder.next() {
                switch event {
                case .att(let e): seen.append(Seen(e))
                case .connection(let c): seen.append(.connection(c))
                case .anomaly(let a): seen.append(.anomaly(a))
                }
            }
        } catch {
            return (seen, error)
        }
        return (seen, nil)
    }

    @Test func decodeAllLendsTheEventsNextReturnsAndEndsWithTheSameDamage() throws {
        var configuration = SyntheticHeartRateTrace.Configuration()
        configuration.heartRateNotifications = 300
        let (path, summary) = try Self.generate(configuration)
        defer { try? FileManager.default.removeItem(atPath: path) }

        let clean = try Self.stepped(path)
        let decoder = try TraceDecoder(path: path)
        var recorder = Recorder(decoder: decoder)
        let end = try decoder.decodeAll(into: &recorder)
        #expect(end == nil)
        #expect(recorder.seen == clean.seen)
        #expect(recorder.seen.count >= summary.attPDUs)
        #expect(recorder.recordsSeenByHandler == recorder.recordsSeenByHandler.sorted())

        // Cut inside a record: both stop there, with the same error, after the same events.
        var file = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        file.removeSubrange((file.count * 2 / 3)...)
        F.write(file, to: path)
        let damaged = try Self.stepped(path)
        let damagedDecoder = try TraceDecoder(path: path)
        var again = Recorder(decoder: damagedDecoder)
        let damage = try damagedDecoder.decodeAll(into: &again)
        #expect(damage != nil && damage == damaged.damage)
        #expect(again.seen == damaged.seen && !again.seen.isEmpty)
    }

    @Test func decodeAllStopsAtTheHandlersFirstError() throws {
        struct StopAtThird: TraceEventHandler {
            typealias Failure = ParseError
            var att = 0
            mutating func handle(_ event: borrowing DecodedATTEvent) throws(ParseError) {
                att += 1
                if att == 3 { throw ParseError(.unsupported, at: 0, field: "stop") }
            }
            func handle(_ event: ConnectionTraceEvent) {}
            func handle(_ anomaly: TraceAnomaly) {}
        }
        var configuration = SyntheticHeartRateTrace.Configuration()
        configuration.heartRateNotifications = 20
        let (path, _) = try Self.generate(configuration)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let decoder = try TraceDecoder(path: path)
        var handler = StopAtThird()
        do {
            _ = try decoder.decodeAll(into: &handler)
            Issue.record("the handler's error must end decoding")
        } catch {
            #expect(error == ParseError(.unsupported, at: 0, field: "stop"))
        }
        #expect(handler.att == 3)
    }
}
