import BandATT
import BandGATT
import BandWire
import JSONOutput

/// A PineTime running InfiniTime, as a reader sees it over BLE (facts from
/// `/work/shared/reference/infinitime.md`, read from InfiniTime's `src/components/ble/*.cpp`):
///
/// | service | characteristic | behaviour here |
/// |---|---|---|
/// | Heart Rate 0x180D | Measurement 0x2A37, read + notify | `[0x00, bpm]` once a second; `[0x00, 0]` while off the wrist (no reading) |
/// | Motion `00030000-78fc-…` | Step count `00030001-…`, read + notify | u32 LE, steps today on the watch's local clock; notified when it changes; 0 at the watch's local midnight and after a reboot |
/// | | Raw motion `00030002-…`, read + notify | 3 × i16 LE, a still watch (0, 0, −1 g) |
/// | Current Time 0x1805 | Current Time 0x2A2B, read + write | the watch's local time; a write sets it (taken as local time) |
/// | | Local Time Information 0x2A0F, read + write | the watch's zone and DST; a write sets them |
/// | Battery 0x180F | Level 0x2A19, read + notify | falls 1 % an hour from `battery` |
/// | Device Information 0x180A | Manufacturer, Model, Firmware Revision | `PINE64`, `PineTime`, `1.14.0` |
///
/// The watch keeps UTC and a zone (as InfiniTime's DateTimeController does): a Current Time
/// write sets UTC = written local time − the zone in force; Local Time Information changes the
/// zone; its local day (midnight reset) is UTC + zone. It keeps no history: what a reader did
/// not see is only in the running total. `onMinute` reports each finished minute's truth.
public final class InfiniTimePeer: PeerDevice, SecondTickedPeer {
    public struct Configuration: Sendable {
        /// True time at boot.
        public var start: PeerMilliseconds
        /// The wearer's zone: the watch's zone at boot and the shape of the day.
        public var utcOffsetSeconds: Int
        public var seed: UInt64 = 1
        public var battery: UInt8 = 87
        public var firmwareRevision = "1.14.0"
        /// Reboots, as simulated time after start.
        public var rebootsAfter: [PeerMilliseconds] = []
        /// The watch's clock error at boot (ms ahead of true time): a reader must set it.
        public var clockErrorMs: PeerMilliseconds = 0
        /// The seconds of each minute whose readings are notified (a reading comes half past
        /// each). Every second by default, as the watch does. A test that runs the watch many
        /// times faster than real time narrows it (e.g. 5...50): the reader stamps readings on
        /// arrival (they carry no time), and at ×60 a reading at 59.5 s leaves 8 ms of scheduling
        /// slack before it is filed under the next minute; 5...50 leaves ~9 simulated seconds
        /// (150 ms) on each side. The minute's steps are spread over these readings only.
        public var notifiedSeconds: ClosedRange<Int64> = 0...59

        public init(start: PeerMilliseconds, utcOffsetSeconds: Int) {
            self.start = start
            self.utcOffsetSeconds = utcOffsetSeconds
        }
    }

    /// One finished minute, as the wearer lived it.
    public struct MinuteTruth: Equatable, Sendable {
        /// True UTC start of the minute.
        public var start: PeerMilliseconds
        public var steps: UInt32
        /// The watch's step count at the minute's end.
        public var stepsToday: UInt32
        public var heartRate: UInt8?
        /// The watch's boot count (0 before the first reboot).
        public var boot: Int
        /// The watch's local offset at the minute's end (seconds east of UTC).
        public var watchUTCOffsetSeconds: Int
        /// The watch's local time of the minute's start, as its clock shows it.
        public var watchLocalStart: PeerMilliseconds

        /// One NDJSON line of `bandsim serve --profile infinitime --truth`.
        public var json: String {
            JSON.text(capacity: 160) { json in
                json.beginObject()
                json.key("profile"); json.value(verbatim: "infinitime")
                json.key("minute"); json.value(PeerTime.iso8601(start))
                json.key("steps"); json.value(Int(steps))
                json.key("steps_today"); json.value(Int(stepsToday))
                json.key("heart_rate"); json.value(heartRate.map { Int($0) })
                json.key("boot"); json.value(boot)
                json.key("watch_local")
                json.value(PeerTime.iso8601(watchLocalStart - PeerMilliseconds(watchUTCOffsetSeconds) * 1000, offsetSeconds: watchUTCOffsetSeconds))
                json.endObject()
            }
        }
    }

    public static let manufacturer = "PINE64"
    public static let model = "PineTime"
    public static let deviceName = "InfiniTime"

    public var table: PeerAttributeTable
    public internal(set) var trueTime: PeerMilliseconds
    public var wantsDisconnect = false
    public var onMinute: ((MinuteTruth) -> Void)?
    public let configuration: Configuration
    public let wearer: WearerMinutes

    public private(set) var stepsToday: UInt32 = 0
    public private(set) var boot = 0
    /// The watch's clock: its UTC is true time plus this error.
    public private(set) var clockErrorMs: PeerMilliseconds
    /// The watch's zone (Local Time Information): standard part in quarter hours, DST code.
    public private(set) var timeZoneQuarterHours: Int8
    public private(set) var dstCode: UInt8 = 0
    var pendingReboots: [PeerMilliseconds]
    /// Steps counted so far in the minute in progress, and its plan.
    private var minuteSteps: UInt32 = 0
    private var minutePlan: WearerMinutes.Minute
    /// Start of the minute in progress (true time).
    private(set) var minuteOpened: PeerMilliseconds
    private var watchDay: Int64
    private var lastNotifiedSteps: UInt32?
    var battery: UInt8

    public init(_ configuration: Configuration) {
        self.configuration = configuration
        wearer = WearerMinutes(seed: configuration.seed, utcOffsetSeconds: configuration.utcOffsetSeconds)
        trueTime = configuration.start
        clockErrorMs = configuration.clockErrorMs
        timeZoneQuarterHours = Int8(clamping: configuration.utcOffsetSeconds / 900)
        pendingReboots = configuration.rebootsAfter.map { configuration.start + $0 }.sorted()
        battery = configuration.battery
        minutePlan = WearerMinutes.Minute(steps: 0, heartRate: nil, onWrist: false)
        minuteOpened = PeerTime.minuteStart(of: configuration.start)
        watchDay = 0
        var builder = PeerTableBuilder()
        typealias C = GATTUUID.Characteristic
        builder.service(GATTUUID.Service.genericAccess)
        builder.characteristic(C.deviceName, .read, value: Array(Self.deviceName.utf8))
        builder.service(GATTUUID.Service.deviceInformation)
        builder.characteristic(C.manufacturerNameString, .read, value: Array(Self.manufacturer.utf8))
        builder.characteristic(C.modelNumberString, .read, value: Array(Self.model.utf8))
        builder.characteristic(C.firmwareRevisionString, .read, value: Array(configuration.firmwareRevision.utf8))
        builder.service(GATTUUID.Service.currentTime)
        builder.characteristic(C.currentTime, [.read, .write], value: [])
        builder.characteristic(C.localTimeInformation, [.read, .write], value: [])
        builder.service(GATTUUID.Service.battery)
        builder.characteristic(C.batteryLevel, [.read, .notify], value: [configuration.battery])
        builder.service(GATTUUID.Service.heartRate)
        builder.characteristic(C.heartRateMeasurement, [.read, .notify], value: [0, 0])
        builder.service(InfiniTimeMotionService.service)
        builder.characteristic(InfiniTimeMotionService.stepCount, [.read, .notify], value: [0, 0, 0, 0])
        builder.characteristic(InfiniTimeMotionService.rawMotion, [.read, .notify], value: [0, 0, 0, 0, 0x00, 0xFC])
        table = builder.build()
        table.validate = { uuid, bytes in Self.validate(uuid, bytes) }
        watchDay = watchLocalDay()
        minutePlan = wearer.minute(at: minuteOpened)
        minuteSteps = stepsDelivered(in: minutePlan, through: trueTime)
        stepsToday = minuteSteps
        refreshClockValues()
        table.setValue(InfiniTimeMotionService.stepCount, Self.le32(stepsToday))
    }

    public var banner: String {
        "InfiniTime \(configuration.firmwareRevision) ('\(Self.deviceName)'), watch clock \(PeerTime.iso8601(trueTime + clockErrorMs, offsetSeconds: watchOffsetSeconds)), steps today \(stepsToday)"
    }

    /// The watch's local offset (zone + DST), seconds east of UTC.
    public var watchOffsetSeconds: Int {
        Int(timeZoneQuarterHours) * 900 + (LocalTimeInformation.DSTOffset(rawValue: dstCode).seconds ?? 0)
    }

    /// The watch's local time now, ms since 1970 on its own wall clock.
    public var watchLocalTime: PeerMilliseconds { trueTime + clockErrorMs + PeerMilliseconds(watchOffsetSeconds) * 1000 }

    private func watchLocalDay() -> Int64 { PeerTime.floorDivide(watchLocalTime, PeerTime.dayMs) }

    /// The next reading: half past each second, so a reader whose clock is a few hundred
    /// milliseconds off still files every reading under the minute it belongs to.
    public var nextDeadline: PeerMilliseconds { PeerTime.nextTick(after: trueTime) }

    // MARK: Model

    public func advance(to time: PeerMilliseconds) -> [PeerPush] { advanceBySeconds(to: time) }

    /// The second's readings: today's count (restarting at the watch's local midnight), heart
    /// rate, notified on the seconds the watch notifies; then the clock's values.
    func secondElapsed(into pushes: inout [PeerPush]) {
        let day = watchLocalDay()
        if day != watchDay {
            // Local midnight on the watch: today's count starts again (yesterday's is not on BLE).
            watchDay = day
            stepsToday = 0
        }
        let delivered = stepsDelivered(in: minutePlan, through: trueTime)
        stepsToday &+= delivered - minuteSteps
        minuteSteps = delivered
        let bpm = minutePlan.onWrist ? minutePlan.heartRate ?? 0 : 0
        table.setValue(GATTUUID.Characteristic.heartRateMeasurement, [0x00, bpm])
        let notifies = configuration.notifiedSeconds.contains(Self.secondOfMinute(trueTime))
        if notifies { pushes.append(PeerPush(characteristic: GATTUUID.Characteristic.heartRateMeasurement, value: [0x00, bpm])) }
        let steps = Self.le32(stepsToday)
        table.setValue(InfiniTimeMotionService.stepCount, steps)
        if notifies, lastNotifiedSteps != stepsToday {
            lastNotifiedSteps = stepsToday
            pushes.append(PeerPush(characteristic: InfiniTimeMotionService.stepCount, value: steps))
        }
        refreshClockValues()
    }

    static func secondOfMinute(_ time: PeerMilliseconds) -> Int64 {
        PeerTime.floorDivide(time - PeerTime.minuteStart(of: time) - PeerTime.tickOffsetMs, PeerTime.secondMs)
    }

    /// Steps of `minute` counted by `time`: spread evenly over the notified readings
    /// (``Configuration/notifiedSeconds``, half past each second), so every step lands inside
    /// its own minute.
    private func stepsDelivered(in minute: WearerMinutes.Minute, through time: PeerMilliseconds) -> UInt32 {
        let window = configuration.notifiedSeconds
        let readings = Int64(window.count)
        let ticks = min(readings, max(0, Self.secondOfMinute(time) - window.lowerBound + 1))
        return UInt32(UInt64(minute.steps) * UInt64(ticks) / UInt64(readings))
    }

    func finishMinute() {
        let start = minuteOpened
        onMinute?(MinuteTruth(start: start, steps: minuteSteps, stepsToday: stepsToday,
                              heartRate: minutePlan.onWrist ? minutePlan.heartRate : nil, boot: boot,
                              watchUTCOffsetSeconds: watchOffsetSeconds,
                              watchLocalStart: start + clockErrorMs + PeerMilliseconds(watchOffsetSeconds) * 1000))
        minuteOpened = PeerTime.minuteStart(of: trueTime)
        minutePlan = wearer.minute(at: minuteOpened)
        minuteSteps = 0
    }

    /// A reboot: the link drops and the step count starts again at 0 (steps counted today
    /// before it are no longer on BLE); the clock keeps running.
    func rebootNow() {
        boot += 1
        stepsToday = 0
        lastNotifiedSteps = nil
        wantsDisconnect = true
        // `minuteSteps` stays: the minute's later steps count from 0 on the new boot.
        table.setValue(InfiniTimeMotionService.stepCount, Self.le32(0))
    }

    // MARK: Link

    /// Current Time reads the watch's clock at the instant of the read, with its 1/256 s fraction.
    public func willAnswer(at time: PeerMilliseconds) {
        refreshClockValues(at: time)
    }

    public func wrote(_ write: PeerWrite) {
        guard case .value(let uuid, let bytes) = write else { return }
        switch uuid {
        case GATTUUID.Characteristic.currentTime:
            guard let written = try? CurrentTime(parsingAll: bytes), let local = written.secondsSince1970 else { return }
            // Taken as local time: UTC = local − the zone in force.
            let writtenUTC = (local - Int64(watchOffsetSeconds)) * 1000 + Int64(written.fractions256) * 1000 / 256
            clockErrorMs = writtenUTC - (answeringAt ?? trueTime)
            watchDay = watchLocalDay()
        case GATTUUID.Characteristic.localTimeInformation:
            guard let information = try? LocalTimeInformation(parsingAll: bytes) else { return }
            timeZoneQuarterHours = information.timeZone
            dstCode = information.dstOffset.rawValue
            watchDay = watchLocalDay()
        default:
            break
        }
        refreshClockValues(at: answeringAt ?? trueTime)
    }

    public func connected() {
        table.connectionStarted()
        wantsDisconnect = false
        lastNotifiedSteps = nil
    }

    public func disconnected() {}

    /// The instant requests are being answered at (between readings), or nil.
    private var answeringAt: PeerMilliseconds?

    private func refreshClockValues(at time: PeerMilliseconds? = nil) {
        answeringAt = time
        let localTime = (time ?? trueTime) + clockErrorMs + PeerMilliseconds(watchOffsetSeconds) * 1000
        let local = PeerTime.floorDivide(localTime, 1000)
        let fraction = UInt8((localTime - local * 1000) * 256 / 1000)
        table.setValue(GATTUUID.Characteristic.currentTime, CurrentTime(secondsSince1970: local, fractions256: fraction).encodedBytes(capacity: 10))
        table.setValue(GATTUUID.Characteristic.localTimeInformation,
                       LocalTimeInformation(timeZone: timeZoneQuarterHours, dstOffset: .init(rawValue: dstCode)).encodedBytes(capacity: 2))
    }

    /// Writes the watch refuses: a Current Time or Local Time Information that does not parse.
    static func validate(_ uuid: BluetoothUUID, _ bytes: [UInt8]) -> ATTErrorCode? {
        switch uuid {
        case GATTUUID.Characteristic.currentTime:
            guard bytes.count == 10 else { return .invalidAttributeValueLength }
            guard let time = try? CurrentTime(parsingAll: bytes), time.secondsSince1970 != nil else { return .valueNotAllowed }
            return nil
        case GATTUUID.Characteristic.localTimeInformation:
            guard bytes.count == 2 else { return .invalidAttributeValueLength }
            return (try? LocalTimeInformation(parsingAll: bytes)) == nil ? .valueNotAllowed : nil
        default:
            return nil
        }
    }

    static func le32(_ value: UInt32) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 24)]
    }
}
