import BandATT
import BandHCI
import BandWire

/// Writes a realistic heart-rate session as a btsnoop trace: what a phone's HCI snoop log
/// shows when it connects to a band, discovers its GATT database, enables notifications and
/// then receives heart-rate measurements for a long time, with other devices' advertising
/// reports interleaved.
///
/// Deterministic for a given ``Configuration``. Used by tests (round trips, tshark
/// cross-check), the decode benchmark (a trace of ≥ 1 million notifications) and
/// `bandsim generate-trace`.
///
/// The band's database (handles chosen so every kind of discovery response appears):
///
/// | handles | service | characteristics (value handle) |
/// |---|---|---|
/// | 0x0001–0x0003 | 0x1800 GAP | 0x2A00 Device Name (0x0003) |
/// | 0x0010–0x0017 | 0x180D Heart Rate | 0x2A37 (0x0012, CCCD 0x0013), 0x2A38 (0x0015), 0x2A39 (0x0017) |
/// | 0x0020–0x0023 | 0x180F Battery | 0x2A19 (0x0022, CCCD 0x0023) |
/// | 0x0030–0x0033 | 0x1814 RSC | 0x2A53 (0x0032, CCCD 0x0033) |
/// | 0x0040–0x0043 | 6e400001-… (128-bit) | 6e400003-… (0x0042, CCCD 0x0043) |
public enum SyntheticHeartRateTrace {
    public struct Configuration: Sendable {
        /// Heart Rate Measurement notifications to write.
        public var heartRateNotifications = 1_000
        /// An advertising report from another device after every `n`-th notification (0: none).
        public var advertisingReportEvery = 2
        /// An RSC Measurement notification after every `n`-th heart-rate one (0: none).
        public var runningSpeedEvery = 60
        /// A Battery Level notification after every `n`-th heart-rate one (0: none).
        public var batteryEvery = 600
        /// Controller ACL buffer: frames longer than this are fragmented.
        public var aclBufferSize = ATTTraceRecorder.classicLEBufferSize
        /// Unix µs of the first record.
        public var startMicroseconds: Int64 = 1_764_460_800_000_000
        public var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        public var connection: UInt16 = 0x0040

        public init() {}
    }

    /// What was written, for tests and benchmarks to check against.
    public struct Summary: Sendable, Equatable {
        public var records = 0
        public var attPDUs = 0
        public var heartRateNotifications = 0
        /// ATT PDUs that needed more than one ACL packet.
        public var fragmentedPDUs = 0
        public var advertisingReports = 0
        public var endMicroseconds: Int64 = 0
    }

    public static let heartRateMeasurementHandle: UInt16 = 0x0012
    public static let batteryLevelHandle: UInt16 = 0x0022
    public static let rscMeasurementHandle: UInt16 = 0x0032
    public static let vendorNotifyHandle: UInt16 = 0x0042
    public static let band = LEAddress(BluetoothAddress(0xD5_42_A7_10_B3_0C), type: .random)
    static let vendorService = BluetoothUUID(high: 0x6E40_0001_B5A3_F393, low: 0xE0A9_E50E_24DC_CA9E)
    static let vendorCharacteristic = BluetoothUUID(high: 0x6E40_0003_B5A3_F393, low: 0xE0A9_E50E_24DC_CA9E)

    /// Writes the whole session into `writer` (which the caller closes).
    public static func write(_ configuration: Configuration, to writer: BtsnoopWriter) throws(BtsnoopError) -> Summary {
        var session = Session(configuration: configuration, writer: writer)
        try session.run()
        session.summary.records = writer.recordCount
        return session.summary
    }

    /// The value of one Heart Rate Measurement (Heart Rate Service 1.0 §3.1; ble-formats.md §1),
    /// encoded here independently of BandGATT so the generator can check the decoder.
    public struct HeartRateSample: Equatable, Sendable {
        public var bpm: UInt16
        /// nil: sensor contact not supported.
        public var contact: Bool?
        public var energyKilojoules: UInt16?
        /// RR intervals, 1/1024 s, oldest first.
        public var rrIntervals: [UInt16]
        public var sixteenBitValue: Bool

        public func encode(into output: inout ByteWriter) {
            var flags: UInt8 = sixteenBitValue ? 0x01 : 0
            if let contact { flags |= contact ? 0x06 : 0x04 }
            if energyKilojoules != nil { flags |= 0x08 }
            if !rrIntervals.isEmpty { flags |= 0x10 }
            output.writeUInt8(flags)
            if sixteenBitValue { output.writeUInt16LE(bpm) } else { output.writeUInt8(UInt8(bpm)) }
            if let energyKilojoules { output.writeUInt16LE(energyKilojoules) }
            for rr in rrIntervals { output.writeUInt16LE(rr) }
        }
    }

    /// The i-th sample of a session with `seed` (what the trace's i-th HR notification holds).
    public static func heartRateSample(_ index: Int, seed: UInt64) -> HeartRateSample {
        var random = SplitMix64(seed: seed &+ UInt64(index) &* 0xA076_1D64_78BD_642F)
        let bpm = UInt16(60 + Int(random.next() % 120))
        let rrCount = Int(random.next() % 13)
        let rr = (0..<rrCount).map { _ in UInt16(61_440 / Int(bpm)) &+ UInt16(random.next() % 40) }
        let contact: Bool? = index % 13 == 5 ? nil : (index % 17 != 3)
        let energy: UInt16? = index % 10 == 0 ? UInt16(truncatingIfNeeded: index / 10) : nil
        return HeartRateSample(bpm: bpm, contact: contact, energyKilojoules: energy, rrIntervals: rr,
                               sixteenBitValue: index % 7 == 3)
    }

    struct SplitMix64 {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    private struct Session {
        let configuration: Configuration
        let writer: BtsnoopWriter
        let recorder: ATTTraceRecorder
        var summary = Summary()
        var now: Int64
        var scratch = [UInt8](repeating: 0, count: 520)

        init(configuration: Configuration, writer: BtsnoopWriter) {
            self.configuration = configuration
            self.writer = writer
            recorder = ATTTraceRecorder(writer: writer, connection: configuration.connection, aclBufferSize: configuration.aclBufferSize)
            now = configuration.startMicroseconds
        }

        mutating func tick(_ microseconds: Int64) { now += microseconds }

        mutating func send(_ pdu: some WireEncodable, _ direction: TraceDirection) throws(BtsnoopError) {
            let length = scratch.withUnsafeMutableBytes { raw -> Int in
                var output = ByteWriter(raw)
                pdu.encode(into: &output)
                return output.count
            }
            try sendBytes(length, direction)
        }

        mutating func sendBytes(_ length: Int, _ direction: TraceDirection) throws(BtsnoopError) {
            let result: Result<Void, BtsnoopError> = scratch.withUnsafeBytes { raw in
                do throws(BtsnoopError) {
                    try recorder.record(pdu: UnsafeRawBufferPointer(rebasing: raw[0..<length]), direction: direction, at: now)
                    return .success(())
                } catch { return .failure(error) }
            }
            try result.get()
            summary.attPDUs += 1
            if length + L2CAPBasicHeader.size > configuration.aclBufferSize { summary.fragmentedPDUs += 1 }
        }

        /// A notification with `value` encoded by `body`.
        mutating func notify(_ handle: UInt16, _ body: (inout ByteWriter) -> Void) throws(BtsnoopError) {
            let length = scratch.withUnsafeMutableBytes { raw -> Int in
                var output = ByteWriter(raw)
                output.writeUInt8(ATTOpcode.handleValueNotification.rawValue)
                output.writeUInt16LE(handle)
                body(&output)
                return output.count
            }
            try sendBytes(length, .rx)
        }

        mutating func exchange(_ request: some WireEncodable, _ response: some WireEncodable) throws(BtsnoopError) {
            tick(7_500)
            try send(request, .tx)
            tick(15_000)
            try send(response, .rx)
        }

        static func value(_ bytes: [UInt8]) -> AttributeBytes { AttributeBytes(bytes) }

        static func declaration(_ properties: UInt8, _ valueHandle: UInt16, _ uuid: BluetoothUUID) -> [UInt8] {
            var out: [UInt8] = [properties, UInt8(valueHandle & 0xFF), UInt8(valueHandle >> 8)]
            var storage = [UInt8](repeating: 0, count: 16)
            let n = storage.withUnsafeMutableBytes { raw -> Int in
                var w = ByteWriter(raw)
                uuid.encode(into: &w)
                return w.count
            }
            out += storage[0..<n]
            return out
        }

        mutating func run() throws(BtsnoopError) {
            try advertise(0)
            tick(120_000)
            try recorder.recordConnection(peer: SyntheticHeartRateTrace.band, at: now)
            try discover()
            try enableNotifications()
            for i in 0..<configuration.heartRateNotifications {
                tick(1_000_000 + Int64(i % 5) * 1_000 - 2_000)
                let sample = SyntheticHeartRateTrace.heartRateSample(i, seed: configuration.seed)
                try notify(SyntheticHeartRateTrace.heartRateMeasurementHandle) { sample.encode(into: &$0) }
                summary.heartRateNotifications += 1
                if configuration.advertisingReportEvery > 0, i % configuration.advertisingReportEvery == 0 {
                    tick(150_000)
                    try advertise(i)
                }
                if configuration.runningSpeedEvery > 0, i % configuration.runningSpeedEvery == configuration.runningSpeedEvery - 1 {
                    tick(400)
                    // Running, stride and distance present: 3.5 m/s, 172 /min, 1.21 m, 1234.5 m.
                    try notify(SyntheticHeartRateTrace.rscMeasurementHandle) {
                        $0.writeUInt8(0x07)
                        $0.writeUInt16LE(896)
                        $0.writeUInt8(172)
                        $0.writeUInt16LE(121)
                        $0.writeUInt32LE(12_345 + UInt32(i))
                    }
                }
                if configuration.batteryEvery > 0, i % configuration.batteryEvery == configuration.batteryEvery - 1 {
                    tick(300)
                    let level = UInt8(100 - min(100, i / configuration.batteryEvery))
                    try notify(SyntheticHeartRateTrace.batteryLevelHandle) { $0.writeUInt8(level) }
                }
            }
            tick(2_000_000)
            try recorder.recordDisconnection(at: now)
            summary.endMicroseconds = now
        }

        mutating func advertise(_ i: Int) throws(BtsnoopError) {
            let address = BluetoothAddress(0xF0_11_22_33_44_00 | UInt64(i % 7))
            let name = Array("Scale \(i % 7)".utf8)
            let data = FixedBytes<31>([0x02, 0x01, 0x06, UInt8(name.count + 1), 0x09] + name)
            let report = LEAdvertisingReport(.init(eventType: 0, advertiser: LEAddress(address, type: .public),
                                                   data: data, rssi: Int8(-40 - i % 50)))
            try recorder.recordEvent(.leMeta, at: now) { report.encode(into: &$0) }
            summary.advertisingReports += 1
        }

        mutating func discover() throws(BtsnoopError) {
            try exchange(ATTExchangeMTURequest(clientRxMTU: 247), ATTExchangeMTUResponse(serverRxMTU: 185))
            let primary = BluetoothUUID(0x2800)
            var services = ATTReadByGroupTypeResponse()
            for (start, end, uuid) in [(0x0001, 0x0003, 0x1800), (0x0010, 0x0017, 0x180D), (0x0020, 0x0023, 0x180F), (0x0030, 0x0033, 0x1814)] {
                _ = services.append(.init(handle: UInt16(start), endGroupHandle: UInt16(end), uuid: BluetoothUUID(UInt16(uuid))), mtu: 185)
            }
            try exchange(ATTReadByGroupTypeRequest(range: ATTHandleRange(start: 0x0001, end: 0xFFFF), groupType: primary), services)
            var vendor = ATTReadByGroupTypeResponse()
            _ = vendor.append(.init(handle: 0x0040, endGroupHandle: 0x0043, uuid: SyntheticHeartRateTrace.vendorService), mtu: 185)
            try exchange(ATTReadByGroupTypeRequest(range: ATTHandleRange(start: 0x0034, end: 0xFFFF), groupType: primary), vendor)
            try exchange(ATTReadByGroupTypeRequest(range: ATTHandleRange(start: 0x0044, end: 0xFFFF), groupType: primary),
                         ATTErrorResponse(requestOpcode: .readByGroupTypeRequest, handle: 0x0044, error: .attributeNotFound))

            let characteristic = BluetoothUUID(0x2803)
            let declarations: [(UInt16, [UInt8])] = [
                (0x0002, Self.declaration(0x02, 0x0003, BluetoothUUID(0x2A00))),
                (0x0011, Self.declaration(0x10, 0x0012, BluetoothUUID(0x2A37))),
                (0x0014, Self.declaration(0x02, 0x0015, BluetoothUUID(0x2A38))),
                (0x0016, Self.declaration(0x08, 0x0017, BluetoothUUID(0x2A39))),
                (0x0021, Self.declaration(0x12, 0x0022, BluetoothUUID(0x2A19))),
                (0x0031, Self.declaration(0x10, 0x0032, BluetoothUUID(0x2A53))),
            ]
            var first = ATTReadByTypeResponse()
            for (handle, value) in declarations.prefix(4) {
                _ = value.withUnsafeBytes { first.append(handle: handle, value: $0, mtu: 185) }
            }
            try exchange(ATTReadByTypeRequest(range: ATTHandleRange(start: 0x0001, end: 0xFFFF), attributeType: characteristic), first)
            var second = ATTReadByTypeResponse()
            for (handle, value) in declarations.suffix(2) {
                _ = value.withUnsafeBytes { second.append(handle: handle, value: $0, mtu: 185) }
            }
            try exchange(ATTReadByTypeRequest(range: ATTHandleRange(start: 0x0017, end: 0xFFFF), attributeType: characteristic), second)
            var third = ATTReadByTypeResponse()
            _ = Self.declaration(0x10, 0x0042, SyntheticHeartRateTrace.vendorCharacteristic).withUnsafeBytes {
                third.append(handle: 0x0041, value: $0, mtu: 185)
            }
            try exchange(ATTReadByTypeRequest(range: ATTHandleRange(start: 0x0032, end: 0xFFFF), attributeType: characteristic), third)
            try exchange(ATTReadByTypeRequest(range: ATTHandleRange(start: 0x0042, end: 0xFFFF), attributeType: characteristic),
                         ATTErrorResponse(requestOpcode: .readByTypeRequest, handle: 0x0042, error: .attributeNotFound))

            for cccd: UInt16 in [0x0013, 0x0023, 0x0033, 0x0043] {
                var info = ATTFindInformationResponse(format: .handleAnd16BitUUID)
                _ = info.append(handle: cccd, type: BluetoothUUID(0x2902), mtu: 185)
                try exchange(ATTFindInformationRequest(range: ATTHandleRange(start: cccd, end: cccd)), info)
            }
            try exchange(ATTReadRequest(handle: 0x0003), ATTReadResponse(value: Self.value(Array("BandKit Band".utf8))))
            try exchange(ATTReadRequest(handle: 0x0015), ATTReadResponse(value: Self.value([0x02])))
            try exchange(ATTReadRequest(handle: SyntheticHeartRateTrace.batteryLevelHandle), ATTReadResponse(value: Self.value([87])))
        }

        mutating func enableNotifications() throws(BtsnoopError) {
            for cccd: UInt16 in [0x0013, 0x0023, 0x0033, 0x0043] {
                try exchange(ATTWriteRequest(handle: cccd, value: Self.value([0x01, 0x00])), ATTWriteResponse())
            }
            // Reset Energy Expended, then an unsupported control-point value (error 0x80).
            try exchange(ATTWriteRequest(handle: 0x0017, value: Self.value([0x01])), ATTWriteResponse())
            try exchange(ATTWriteRequest(handle: 0x0017, value: Self.value([0x02])),
                         ATTErrorResponse(requestOpcode: .writeRequest, handle: 0x0017, error: ATTErrorCode(rawValue: 0x80)))
            tick(20_000)
            try notify(SyntheticHeartRateTrace.vendorNotifyHandle) { $0.writeBytes([0xCA, 0xFE] as [UInt8]) }
        }
    }
}
