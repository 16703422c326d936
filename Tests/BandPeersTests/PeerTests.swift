import BandATT
import BandGATT
import BandGATTServer
import BandPeers
import BandWire
import Testing

/// 2026-11-30T22:50:00Z = 23:50 at UTC+1.
let lateEvening: PeerMilliseconds = 1_796_079_000_000
let plusOne = 3600

/// One request to a peer's table through the one GATT server; the response bytes.
func exchange<Device: PeerDevice>(_ device: Device, _ server: inout GATTServer, _ request: [UInt8]) -> (response: [UInt8], event: GATTServerEvent<PeerWrite>) {
    var output = [UInt8](repeating: 0, count: 600)
    var table = device.table
    let result = request.withUnsafeBytes { pdu in
        output.withUnsafeMutableBytes { server.handle(pdu, source: &table, into: $0) }
    }
    device.table = table
    if case .wrote(_, let effect) = result.event { device.wrote(effect) }
    return (Array(output[0..<result.responseLength]), result.event)
}

func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }

@Suite struct InfiniTimePeerTests {
    func watch(start: PeerMilliseconds = lateEvening, reboots: [PeerMilliseconds] = []) -> (InfiniTimePeer, [InfiniTimePeer.MinuteTruth]) {
        var configuration = InfiniTimePeer.Configuration(start: start, utcOffsetSeconds: plusOne)
        configuration.seed = 3
        configuration.rebootsAfter = reboots
        return (InfiniTimePeer(configuration), [])
    }

    @Test func theDatabaseHasInfiniTimesServicesAndReadsTheStepCountAsU32() {
        let (watch, _) = watch()
        let uuids = watch.table.characteristics.map(\.uuid)
        for uuid in [GATTUUID.Characteristic.heartRateMeasurement, InfiniTimeMotionService.stepCount, InfiniTimeMotionService.rawMotion,
                     GATTUUID.Characteristic.currentTime, GATTUUID.Characteristic.localTimeInformation, GATTUUID.Characteristic.batteryLevel,
                     GATTUUID.Characteristic.firmwareRevisionString] {
            #expect(uuids.contains(uuid), "\(uuid)")
        }
        _ = watch.advance(to: lateEvening + 5 * 60_000)
        var server = GATTServer()
        let handle = watch.table.valueHandle(of: InfiniTimeMotionService.stepCount)!
        let (response, _) = exchange(watch, &server, [ATTOpcode.readRequest.rawValue] + le16(handle))
        #expect(response.count == 5 && response[0] == ATTOpcode.readResponse.rawValue)
        let steps = UInt32(response[1]) | UInt32(response[2]) << 8 | UInt32(response[3]) << 16 | UInt32(response[4]) << 24
        #expect(steps == watch.stepsToday && steps > 0)
        let (firmware, _) = exchange(watch, &server, [ATTOpcode.readRequest.rawValue] + le16(watch.table.valueHandle(of: GATTUUID.Characteristic.firmwareRevisionString)!))
        #expect(Array(firmware.dropFirst()) == Array("1.14.0".utf8))
    }

    @Test func theStepCountRestartsAtTheWatchsLocalMidnightAndTheTruthAddsUp() {
        let (watch, _) = watch()
        var truth: [InfiniTimePeer.MinuteTruth] = []
        watch.onMinute = { truth.append($0) }
        var notified: [UInt32] = []
        for pushes in stride(from: lateEvening + 500, through: lateEvening + 20 * 60_000 + 500, by: 1000).map({ watch.advance(to: $0) }) {
            for push in pushes where push.characteristic == InfiniTimeMotionService.stepCount {
                notified.append(UInt32(push.value[0]) | UInt32(push.value[1]) << 8 | UInt32(push.value[2]) << 16 | UInt32(push.value[3]) << 24)
            }
        }
        #expect(truth.count == 20)
        let beforeMidnight = truth.prefix(10), afterMidnight = truth.dropFirst(10)
        #expect(beforeMidnight.last?.stepsToday == beforeMidnight.reduce(0) { $0 + $1.steps })
        #expect(afterMidnight.last?.stepsToday == afterMidnight.reduce(0) { $0 + $1.steps })
        #expect(beforeMidnight.reduce(0) { $0 + $1.steps } > 0 && afterMidnight.reduce(0) { $0 + $1.steps } > 0)
        #expect(afterMidnight.first?.watchUTCOffsetSeconds == plusOne)
        // Notified only on change, rising through the day, one fall: midnight.
        #expect(zip(notified, notified.dropFirst()).allSatisfy { $0 != $1 })
        #expect(zip(notified, notified.dropFirst()).filter { $1 < $0 }.count == 1)
    }

    @Test func aRebootDropsTheLinkAndRestartsTheCount() {
        let (watch, _) = watch(start: lateEvening - 3 * 3_600_000, reboots: [90_000])
        // Readings come at half past each second: the reboot is due at 90 s, taken at 90.5 s.
        _ = watch.advance(to: lateEvening - 3 * 3_600_000 + 90_000)
        let before = watch.stepsToday
        #expect(!watch.wantsDisconnect)
        _ = watch.advance(to: lateEvening - 3 * 3_600_000 + 90_500)
        #expect(watch.wantsDisconnect)
        #expect(watch.boot == 1)
        #expect(watch.stepsToday == 0)
        _ = watch.advance(to: lateEvening - 3 * 3_600_000 + 150_000)
        #expect(watch.stepsToday < before + 200)
    }

    @Test func currentTimeWritesSetTheClockAsLocalTimeAndLocalTimeInformationTheZone() throws {
        let (watch, _) = watch()
        var server = GATTServer()
        let lti = watch.table.valueHandle(of: GATTUUID.Characteristic.localTimeInformation)!
        let cts = watch.table.valueHandle(of: GATTUUID.Characteristic.currentTime)!
        // UTC+5:30 (22 quarter hours), then 2026-12-01 10:00:00 local.
        #expect(exchange(watch, &server, [ATTOpcode.writeRequest.rawValue] + le16(lti) + [22, 0]).response == [ATTOpcode.writeResponse.rawValue])
        let local = DateTime(year: 2026, month: 12, day: 1, hours: 10, minutes: 0, seconds: 0).secondsSince1970!
        let written = CurrentTime(secondsSince1970: local).encodedBytes(capacity: 10)
        #expect(exchange(watch, &server, [ATTOpcode.writeRequest.rawValue] + le16(cts) + written).response == [ATTOpcode.writeResponse.rawValue])
        #expect(watch.watchOffsetSeconds == 19_800)
        #expect(watch.watchLocalTime == local * 1000)
        let (read, _) = exchange(watch, &server, [ATTOpcode.readRequest.rawValue] + le16(cts))
        #expect(try CurrentTime(parsingAll: Array(read.dropFirst())).secondsSince1970 == local)
        // A short or impossible value is refused and changes nothing.
        #expect(exchange(watch, &server, [ATTOpcode.writeRequest.rawValue] + le16(cts) + [0xEA, 0x07, 12]).response
                    == [ATTOpcode.errorResponse.rawValue, ATTOpcode.writeRequest.rawValue] + le16(cts) + [ATTErrorCode.invalidAttributeValueLength.rawValue])
        var impossible = written
        impossible[2] = 13   // month 13
        #expect(exchange(watch, &server, [ATTOpcode.writeRequest.rawValue] + le16(cts) + impossible).response.last == ATTErrorCode.valueNotAllowed.rawValue)
        #expect(watch.watchLocalTime == local * 1000)
    }

    @Test func offTheWristTheHeartRateIsZeroAndTheTruthHasNoReading() {
        // 19:00–19:19 local is the shower.
        let start = lateEvening - 4 * 3_600_000 - 50 * 60_000 - 60_000   // 18:59 local
        let (watch, _) = watch(start: start)
        var truth: [InfiniTimePeer.MinuteTruth] = []
        watch.onMinute = { truth.append($0) }
        var rates: [UInt8] = []
        for second in 1...181 {
            rates += watch.advance(to: start + PeerMilliseconds(second) * 1000)
                .filter { $0.characteristic == GATTUUID.Characteristic.heartRateMeasurement }.map { #expect($0.value.count == 2 && $0.value[0] == 0); return $0.value[1] }
        }
        // Readings at 0.5 … 59.5 s are 18:59; from 19:00:00.5 the watch is off the wrist.
        #expect(rates.count == 181)
        #expect(rates.prefix(60).allSatisfy { $0 > 0 })
        #expect(rates.dropFirst(60).allSatisfy { $0 == 0 })
        #expect(truth.map(\.heartRate).map { $0 == nil } == [false, true, true])
    }
}

@Suite struct HeartRateStrapPeerTests {
    @Test func theControlPointResetsEnergyAndRefusesOtherValues() throws {
        let strap = HeartRateStrapPeer(.init(start: lateEvening, utcOffsetSeconds: plusOne))
        var measurements: [HeartRateMeasurement] = []
        for second in 1...120 {
            for push in strap.advance(to: lateEvening + PeerMilliseconds(second) * 1000) where push.characteristic == GATTUUID.Characteristic.heartRateMeasurement {
                measurements.append(try HeartRateMeasurement(parsingAll: push.value))
            }
        }
        #expect(measurements.count == 120)
        #expect(measurements.allSatisfy { $0.sensorContact == .detected && $0.rrIntervals?.isEmpty == false })
        let energies = measurements.compactMap(\.energyExpended)
        #expect(energies.count == 12)
        #expect(energies.last! > 0 && Int(energies.last!) == strap.energyExpended)
        var server = GATTServer()
        let controlPoint = strap.table.valueHandle(of: GATTUUID.Characteristic.heartRateControlPoint)!
        #expect(exchange(strap, &server, [ATTOpcode.writeRequest.rawValue] + le16(controlPoint) + [0x02]).response
                    == [ATTOpcode.errorResponse.rawValue, ATTOpcode.writeRequest.rawValue] + le16(controlPoint) + [0x80])
        #expect(strap.energyExpended > 0)
        #expect(exchange(strap, &server, [ATTOpcode.writeRequest.rawValue] + le16(controlPoint) + [0x01]).response == [ATTOpcode.writeResponse.rawValue])
        #expect(strap.energyExpended == 0 && strap.resets == 1)
    }

    @Test func offTheSkinMeasurementsSayContactNotDetected() throws {
        let start = lateEvening - 4 * 3_600_000 - 50 * 60_000   // 19:00 local: the shower
        let strap = HeartRateStrapPeer(.init(start: start, utcOffsetSeconds: plusOne))
        var truth: [HeartRateStrapPeer.MinuteTruth] = []
        strap.onMinute = { truth.append($0) }
        let pushes = strap.advance(to: start + 60_500).filter { $0.characteristic == GATTUUID.Characteristic.heartRateMeasurement }
        #expect(pushes.count == 61)
        let measurements = try pushes.map { try HeartRateMeasurement(parsingAll: $0.value) }
        #expect(measurements.allSatisfy { $0.sensorContact == .notDetected && $0.rrIntervals == nil })
        #expect(truth.first?.heartRate == nil && truth.first?.contact == false && truth.first?.energyKilojoules == 0)
    }
}

@Suite struct PeerAttributeTableTests {
    @Test func notificationsNeedTheirCCCDAndANewConnectionClearsThem() {
        let strap = HeartRateStrapPeer(.init(start: lateEvening, utcOffsetSeconds: 0))
        var server = GATTServer()
        let measurement = strap.table.valueHandle(of: GATTUUID.Characteristic.heartRateMeasurement)!
        #expect(!strap.table.notifies(GATTUUID.Characteristic.heartRateMeasurement))
        #expect(exchange(strap, &server, [ATTOpcode.writeRequest.rawValue] + le16(measurement + 1) + [1, 0, 0]).response.last
                    == ATTErrorCode.invalidAttributeValueLength.rawValue)
        #expect(exchange(strap, &server, [ATTOpcode.writeRequest.rawValue] + le16(measurement + 1) + [1, 0]).response == [ATTOpcode.writeResponse.rawValue])
        #expect(strap.table.notifies(GATTUUID.Characteristic.heartRateMeasurement))
        // The measurement is notify-only: a read is refused.
        #expect(exchange(strap, &server, [ATTOpcode.readRequest.rawValue] + le16(measurement)).response.last == ATTErrorCode.readNotPermitted.rawValue)
        strap.connected()
        #expect(!strap.table.notifies(GATTUUID.Characteristic.heartRateMeasurement))
    }

    @Test func primaryServicesAreDiscoveredInHandleOrderWithTheirGroupEnds() {
        let (watch, _) = InfiniTimePeerTests().watch()
        var server = GATTServer()
        // Read By Group Type, paged as a client does: each response holds entries of one size
        // and as many as ATT_MTU 23 allows; the next request starts after the last group end.
        var services: [(start: UInt16, end: UInt16, uuid: [UInt8])] = []
        var next: UInt16 = 1
        while true {
            let (response, _) = exchange(watch, &server, [ATTOpcode.readByGroupTypeRequest.rawValue] + le16(next) + [0xFF, 0xFF, 0x00, 0x28])
            guard response.first == ATTOpcode.readByGroupTypeResponse.rawValue else {
                #expect(response == [ATTOpcode.errorResponse.rawValue, ATTOpcode.readByGroupTypeRequest.rawValue] + le16(next) + [ATTErrorCode.attributeNotFound.rawValue])
                break
            }
            let size = Int(response[1])
            for offset in stride(from: 2, to: response.count, by: size) {
                let entry = Array(response[offset..<offset + size])
                services.append((UInt16(entry[0]) | UInt16(entry[1]) << 8, UInt16(entry[2]) | UInt16(entry[3]) << 8, Array(entry[4...])))
            }
            next = services.last!.end + 1
        }
        #expect(services.map(\.uuid) == [[0x00, 0x18], [0x0A, 0x18], [0x05, 0x18], [0x0F, 0x18], [0x0D, 0x18],
                                         ServiceDeclaration(uuid: InfiniTimeMotionService.service).encodedBytes(capacity: 16)])
        #expect(services.allSatisfy { $0.end >= $0.start })
        #expect(zip(services, services.dropFirst()).allSatisfy { $0.end + 1 == $1.start })
    }
}
