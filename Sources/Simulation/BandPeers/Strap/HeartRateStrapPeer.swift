import BandATT
import BandGATT
import BandWire
import JSONOutput

/// A standard chest strap (Heart Rate Service 1.0), the kind a third-party vendor sells:
///
/// | service | characteristic | behaviour here |
/// |---|---|---|
/// | Heart Rate 0x180D | Measurement 0x2A37, notify | once a second: 8-bit bpm, sensor contact supported (detected, or not while off the skin), Energy Expended every 10th measurement, the RR intervals of the beats that second |
/// | | Body Sensor Location 0x2A38, read | chest (1) |
/// | | Control Point 0x2A39, write | 0x01 resets Energy Expended to 0; anything else: 0x80 Control Point Value Not Supported (HRS §3.3.2) |
/// | Battery 0x180F | Level 0x2A19, read + notify | falls 1 % an hour |
/// | Device Information 0x180A | Manufacturer, Model, Serial | `Strapworks`, `HRM-2`, `S-2` |
///
/// No clock, no history, no steps. Off the skin (the wearer's shower, `WearerMinutes`) it sends
/// measurements flagged "contact not detected" with the last rate, as real straps do.
/// Energy: 4 kJ a minute at rest, more with the rate (a made-up but fixed model), counted only
/// while in contact and added to Energy Expended when a measurement carries the field (every
/// 10th); saturates at 65535 (HRS §3.1.1.3).
public final class HeartRateStrapPeer: PeerDevice, SecondTickedPeer {
    public struct Configuration: Sendable {
        public var start: PeerMilliseconds
        public var utcOffsetSeconds: Int
        public var seed: UInt64 = 1
        public var battery: UInt8 = 90
        public var rebootsAfter: [PeerMilliseconds] = []

        public init(start: PeerMilliseconds, utcOffsetSeconds: Int) {
            self.start = start
            self.utcOffsetSeconds = utcOffsetSeconds
        }
    }

    /// One finished minute.
    public struct MinuteTruth: Equatable, Sendable {
        public var start: PeerMilliseconds
        /// The rate while in contact; nil when off the skin the whole minute.
        public var heartRate: UInt8?
        public var contact: Bool
        /// Energy Expended grown in this minute (kJ).
        public var energyKilojoules: Int
        public var rrIntervals: Int

        public var json: String {
            JSON.text(capacity: 128) { json in
                json.beginObject()
                json.key("profile"); json.value(verbatim: "hr-strap")
                json.key("minute"); json.value(PeerTime.iso8601(start))
                json.key("heart_rate"); json.value(heartRate.map { Int($0) })
                json.key("contact"); json.value(contact)
                json.key("energy_kj"); json.value(energyKilojoules)
                json.key("rr_intervals"); json.value(rrIntervals)
                json.endObject()
            }
        }
    }

    public static let controlPointNotSupported = ATTErrorCode(rawValue: 0x80)

    public var table: PeerAttributeTable
    public internal(set) var trueTime: PeerMilliseconds
    public var wantsDisconnect = false
    public var onMinute: ((MinuteTruth) -> Void)?
    public let configuration: Configuration
    public let wearer: WearerMinutes
    /// Energy Expended (kJ since the last reset).
    public internal(set) var energyExpended: Int = 0
    public private(set) var resets = 0
    private var measurements = 0
    private var minutePlan: WearerMinutes.Minute
    /// Start of the minute in progress (true time).
    private(set) var minuteOpened: PeerMilliseconds
    private var minuteEnergy = 0
    /// Energy burnt since the last measurement that carried the field.
    private var unreportedEnergy = 0
    private var minuteRR = 0
    /// Beat phase: ms into the current beat, so RR intervals follow the rate across seconds.
    private var beatPhaseMs: Int64 = 0
    var battery: UInt8
    var pendingReboots: [PeerMilliseconds]
    private var lastRate: UInt8 = 70

    public init(_ configuration: Configuration) {
        self.configuration = configuration
        wearer = WearerMinutes(seed: configuration.seed, utcOffsetSeconds: configuration.utcOffsetSeconds)
        trueTime = configuration.start
        battery = configuration.battery
        pendingReboots = configuration.rebootsAfter.map { configuration.start + $0 }.sorted()
        minuteOpened = PeerTime.minuteStart(of: configuration.start)
        minutePlan = wearer.minute(at: minuteOpened)
        typealias C = GATTUUID.Characteristic
        var builder = PeerTableBuilder()
        builder.service(GATTUUID.Service.genericAccess)
        builder.characteristic(C.deviceName, .read, value: Array("HRM-2 Strap".utf8))
        builder.service(GATTUUID.Service.deviceInformation)
        builder.characteristic(C.manufacturerNameString, .read, value: Array("Strapworks".utf8))
        builder.characteristic(C.modelNumberString, .read, value: Array("HRM-2".utf8))
        builder.characteristic(C.serialNumberString, .read, value: Array("S-2".utf8))
        builder.service(GATTUUID.Service.battery)
        builder.characteristic(C.batteryLevel, [.read, .notify], value: [configuration.battery])
        builder.service(GATTUUID.Service.heartRate)
        builder.characteristic(C.heartRateMeasurement, .notify, value: [])
        builder.characteristic(C.bodySensorLocation, .read, value: [0x01])
        builder.characteristic(C.heartRateControlPoint, .write, value: [])
        table = builder.build()
        table.validate = { uuid, bytes in
            uuid == C.heartRateControlPoint && bytes != [0x01] ? Self.controlPointNotSupported : nil
        }
    }

    public var banner: String { "heart-rate strap 'HRM-2 Strap' (Strapworks HRM-2, serial S-2), battery \(battery) %" }

    /// The next reading: half past each second, so a reader whose clock is a few hundred
    /// milliseconds off still files every reading under the minute it belongs to.
    public var nextDeadline: PeerMilliseconds { PeerTime.nextTick(after: trueTime) }

    public func advance(to time: PeerMilliseconds) -> [PeerPush] { advanceBySeconds(to: time) }

    /// A strap's battery swap: the link drops, Energy Expended starts again.
    func rebootNow() {
        wantsDisconnect = true
        energyExpended = 0
    }

    /// The strap measures every second.
    func secondElapsed(into pushes: inout [PeerPush]) {
        pushes.append(PeerPush(characteristic: GATTUUID.Characteristic.heartRateMeasurement, value: measurement()))
    }

    /// This second's measurement: the minute's rate, contact, the beats that ended in it.
    private func measurement() -> [UInt8] {
        measurements += 1
        let contact = minutePlan.onWrist
        if let rate = minutePlan.heartRate { lastRate = rate }
        var intervals = RRIntervals()
        if contact {
            let beatMs = Int64(60_000 / Int(lastRate))
            beatPhaseMs += 1000
            while beatPhaseMs >= beatMs {
                beatPhaseMs -= beatMs
                _ = intervals.append(RRInterval(rawValue: UInt16(beatMs * 1024 / 1000)))
                minuteRR += 1
            }
            // Energy: a whole kJ at a time, on the seconds that complete one (the minute's share
            // of 4 + (rate − 60) / 10 kJ).
            let perMinute = 4 + max(0, Int(lastRate) - 60) / 10
            let second = Int((trueTime - PeerTime.floorDivide(trueTime, PeerTime.minuteMs) * PeerTime.minuteMs) / 1000)
            let due = perMinute * (second + 1) / 60 - perMinute * second / 60
            unreportedEnergy += due
        }
        let reportsEnergy = measurements % 10 == 0
        if reportsEnergy {
            // The count moves when it is reported, so each minute's truth is what a reader sees grow in it.
            energyExpended = min(65535, energyExpended + unreportedEnergy)
            minuteEnergy += unreportedEnergy
            unreportedEnergy = 0
        }
        let value = HeartRateMeasurement(beatsPerMinute: UInt16(lastRate), sensorContact: contact ? .detected : .notDetected,
                                         energyExpended: reportsEnergy ? UInt16(energyExpended) : nil,
                                         rrIntervals: intervals.isEmpty ? nil : intervals)
        return value.encodedBytes(capacity: 64)
    }

    func finishMinute() {
        onMinute?(MinuteTruth(start: minuteOpened, heartRate: minutePlan.onWrist ? minutePlan.heartRate : nil,
                              contact: minutePlan.onWrist, energyKilojoules: minuteEnergy, rrIntervals: minuteRR))
        minuteOpened = PeerTime.minuteStart(of: trueTime)
        minutePlan = wearer.minute(at: minuteOpened)
        minuteEnergy = 0
        minuteRR = 0
    }

    public func willAnswer(at time: PeerMilliseconds) {}

    public func wrote(_ write: PeerWrite) {
        if case .value(GATTUUID.Characteristic.heartRateControlPoint, [0x01]) = write {
            energyExpended = 0
            resets += 1
        }
    }

    public func connected() {
        table.connectionStarted()
        wantsDisconnect = false
    }

    public func disconnected() {}
}
