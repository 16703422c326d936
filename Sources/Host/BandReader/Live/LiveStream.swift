import BandGATT
import BandProtocol
import BandWire
import FoundationEssentials

/// Turns the live notifications of one connection into readings for the screen and provisional
/// minutes for the store.
///
/// Heart Rate Measurements carry no time, so they are stamped with the band's clock as a
/// ``BandClockEstimator`` extrapolates it from the band timestamps seen (Live Activity snapshots,
/// the Current Time read at connect). A strap without the activity service gets host time. Closed minutes queue in ``takeClosedMinutes()`` for the session to write
/// between notifications; nothing here touches the store.
public final class LiveStream {
    public struct Handles: Sendable {
        public var heartRate: UInt16?
        public var rsc: UInt16?
        public var battery: UInt16?
        public var liveActivity: UInt16?
        /// InfiniTime's Motion step count.
        public var stepCount: UInt16?
        public init(heartRate: UInt16? = nil, rsc: UInt16? = nil, battery: UInt16? = nil, liveActivity: UInt16? = nil, stepCount: UInt16? = nil) {
            self.stepCount = stepCount
            self.heartRate = heartRate
            self.rsc = rsc
            self.battery = battery
            self.liveActivity = liveActivity
        }

        /// The live characteristics a device has: the routing of its notifications, one rule
        /// for the live session and replay.
        public init(profile: BandProfile) {
            self.init(heartRate: profile.heartRateMeasurement?.valueHandle, rsc: profile.rscMeasurement?.valueHandle,
                      battery: profile.batteryLevel?.valueHandle, liveActivity: profile.activity?.liveActivity.valueHandle,
                      stepCount: profile.motionStepCount?.valueHandle)
        }
    }

    public let handles: Handles
    public private(set) var tracker = LiveCounterTracker()
    public private(set) var aggregator = MinuteAggregator()
    public private(set) var stepsToday: UInt32?
    public private(set) var cadence: Int?
    public private(set) var lastHeartRate: Int?
    public var batteryPercent: Int? {
        didSet { if batteryPercent != nil, batteryPercent != oldValue { batteryUpdate = bandTime() } }
    }
    /// The last Energy Expended value (kJ, cumulative since the strap's last reset).
    public private(set) var energyExpended: UInt16?
    /// Readings that were not used, for diagnostics.
    public private(set) var anomalies = 0
    /// Called when a notification changed what the stream holds, before its reading is
    /// reported: the session journals it here, so a reading reported is a reading kept.
    public var received: (() -> Void)?

    private var closed: [LiveMinute] = []
    /// Steps from a daily running total (InfiniTime): deltas and gaps, never negative, never
    /// twice. Set (with the stored last total) before the first step-count reading.
    public var stepTracker = StepCountTracker(stored: nil)
    /// Steps taken while disconnected, not yet written (``takeStepGaps()``).
    private var gaps: [StepGap] = []
    /// When the battery level last changed (band time), until ``takeBatteryUpdate()``.
    private var batteryUpdate: UInt32?
    private var plausibility = PhysiologicalPlausibility()
    /// RR intervals excluded in one minute of band time, not yet reported.
    private var rrRejections = RRRejections()
    /// Whether the last heart-rate measurement said the sensor touched the skin (nil: not reported).
    private var lastContact: Bool?
    private var clock = BandClockEstimator()
    private var utcOffsetSeconds: Int?
    /// The device's zone as last read while streaming (Local Time Information).
    private var deviceOffset: Int?
    private let now: () -> Date
    private let hostOffset: () -> Int
    private let report: (ReaderEvent) -> Void

    public init(handles: Handles, now: @escaping () -> Date = Date.init,
                hostOffset: @escaping () -> Int = { SystemTimeZone().secondsFromGMT(for: Date()) },
                report: @escaping (ReaderEvent) -> Void) {
        self.handles = handles
        self.now = now
        self.hostOffset = hostOffset
        self.report = report
        closed.reserveCapacity(4)
    }

    /// Records that the band's clock read `bandTime` at the host time `hostTime`.
    public func observeBandClock(_ bandTime: Double, at hostTime: Date) {
        clock.observe(seconds: bandTime, at: hostTime)
    }

    /// The device's Current Time, read again while streaming, at the host time the read was sent,
    /// and its zone if read: the device's own clock, so it corrects the extrapolation at once
    /// instead of being held back as a damaged value. Steps from a daily running total are
    /// counted on the device's local day, so its zone (not the host's) decides where midnight is.
    public func observeDeviceClock(_ bandTime: Double, at hostTime: Date, utcOffsetSeconds offset: Int?) {
        clock.observe(seconds: bandTime, at: hostTime, trusted: true)
        if let offset { deviceOffset = offset }
    }

    /// How many band seconds pass per host second.
    public var bandClockRate: Double { clock.rate }

    /// The band's clock now, as well as the reader knows it (host time for a plain strap).
    public func bandTime() -> UInt32 {
        let host = now()
        let seconds = clock.estimate(at: host) ?? host.timeIntervalSince1970
        return UInt32(clamping: Int64(seconds))
    }

    /// Handles one notification; returns false when the handle is not a live characteristic.
    @discardableResult
    public func handle(_ handle: UInt16, _ value: UnsafeRawBufferPointer) -> Bool {
        switch handle {
        case handles.liveActivity: liveActivity(value)
        case handles.heartRate: heartRate(value)
        case handles.rsc: rsc(value)
        case handles.battery: battery(value)
        case handles.stepCount: stepCount(value)
        default: return false
        }
        return true
    }

    /// Minutes completed since the last call.
    public func takeClosedMinutes() -> [LiveMinute] {
        defer { closed.removeAll(keepingCapacity: true) }
        return closed
    }

    /// Everything no write has taken yet, without taking it: the closed minutes, the open one
    /// (if it holds anything), the step gaps and a changed battery level (the session's journal).
    public var uncommitted: (minutes: [LiveMinute], gaps: [StepGap], battery: (percent: Int, time: Date)?) {
        var minutes = closed
        if let open = aggregator.current, !open.isEmpty { minutes.append(open) }
        var battery: (percent: Int, time: Date)?
        if let time = batteryUpdate, let batteryPercent { battery = (percent: batteryPercent, time: Date(timeIntervalSince1970: TimeInterval(time))) }
        return (minutes: minutes, gaps: gaps, battery: battery)
    }

    /// Steps taken while the reader was away, found since the last call.
    public func takeStepGaps() -> [StepGap] {
        defer { gaps.removeAll() }
        return gaps
    }

    /// The battery level if it changed since the last call, with the band time it was reported.
    public func takeBatteryUpdate() -> (percent: Int, time: Date)? {
        defer { batteryUpdate = nil }
        guard let time = batteryUpdate, let batteryPercent else { return nil }
        return (batteryPercent, Date(timeIntervalSince1970: TimeInterval(time)))
    }

    /// The reader's time in milliseconds: names this stream's part of each minute it files.
    /// Rounded to the microsecond first, as a trace records it, so a replay of the recording
    /// (whose "now" is the recorded microsecond) names the same part.
    private func receivedAt() -> Int64 { Int64((now().timeIntervalSince1970 * 1_000_000).rounded()) / 1000 }

    /// Closes the minute in progress (the stream is stopping) and returns everything unwritten.
    public func finish() -> [LiveMinute] {
        if rrRejections.count > 0 { reportRRRejections() }
        if let last = aggregator.flush() { closed.append(last) }
        return takeClosedMinutes()
    }

    // MARK: Values

    private func liveActivity(_ value: UnsafeRawBufferPointer) {
        let snapshot: LiveActivity
        do { snapshot = try LiveActivity(parsingAll: value) } catch {
            anomaly("live activity value \(Hex.encode(value)) is malformed: \(error)")
            return
        }
        let reading = CounterReading(timestamp: snapshot.timestamp, utcOffsetSeconds: snapshot.utcOffset.seconds,
                                     bootEpoch: snapshot.bootEpoch, localDay: snapshot.localDay, steps: snapshot.steps,
                                     distanceDecimetres: snapshot.distanceDecimetres,
                                     energyDecikilocalories: snapshot.energyDecikilocalories)
        // A timestamp far from the band's clock is a damaged value: it must neither move the
        // clock estimate nor become the counters' baseline.
        guard clock.observe(snapshot.timestamp, at: now()) else {
            anomaly("live activity timestamp \(snapshot.timestamp) is far from the band's clock; not used")
            return
        }
        let (delta, outcome) = tracker.update(with: reading)
        if case .rejected(let why) = outcome {
            anomaly("live counters not used: \(why)")
            return
        }
        utcOffsetSeconds = snapshot.utcOffset.seconds
        stepsToday = snapshot.steps
        if let minute = aggregator.add(delta, at: snapshot.timestamp, utcOffsetSeconds: utcOffsetSeconds, receivedAt: receivedAt()) {
            closed.append(minute)
        }
        emit("activity", at: snapshot.timestamp)
    }

    private func heartRate(_ value: UnsafeRawBufferPointer) {
        let measurement: HeartRateMeasurement
        do { measurement = try HeartRateMeasurement(parsingAll: value) } catch {
            anomaly("heart rate measurement \(Hex.encode(value)) is malformed: \(error)")
            return
        }
        let time = bandTime()
        var bpm = measurement.beatsPerMinute == 0 ? nil : Int(measurement.beatsPerMinute)
        if let measured = bpm, !PhysiologicalPlausibility.isPlausible(heartRate: measured) {
            anomaly("heart rate \(measured) bpm is outside \(PhysiologicalPlausibility.heartRateRange.lowerBound)–\(PhysiologicalPlausibility.heartRateRange.upperBound) bpm; not used")
            bpm = nil
        }
        // Sensor contact "not detected" (HRS 1.0 §3.1.1.2): the strap is off the skin and its rate
        // is not the wearer's. Left out of the minute (counted as such), shown as it is.
        let contact = measurement.sensorContact != .notDetected
        lastContact = measurement.sensorContact == .notSupported ? nil : contact
        lastHeartRate = bpm
        let energy = energyGrowth(measurement.energyExpended)
        let offset = utcOffsetSeconds ?? (clock.estimate(at: now()) == nil ? hostOffset() : nil)
        let intervals = measurement.rrIntervals ?? RRIntervals()
        // Only intervals the plausibility rules accept reach the minute (and so the HRV sample).
        var accepted = RRIntervals()
        // Exclusions are reported once per minute (a strap with frequent ectopic beats would
        // otherwise report nearly every notification), with the count and the last example.
        let minute = time - time % 60
        if rrRejections.count > 0, minute != rrRejections.minute { reportRRRejections() }
        for interval in intervals where contact {
            switch plausibility.judge(interval.rawValue) {
            case nil: _ = accepted.append(interval)
            case .outOfRange?: rrRejections.add(interval.rawValue, "outside 240–2400 ms", minute: minute)
            case .suddenChange?: rrRejections.add(interval.rawValue, "more than 20 % from the previous", minute: minute)
            case .unconfirmed?: break   // the stream's first interval, waiting for the next to confirm it
            }
        }
        if let minute = aggregator.add(heartRate: bpm, rrIntervals: accepted.lazy.map(\.rawValue), at: time, utcOffsetSeconds: offset,
                                       contact: contact, energyKilojoules: energy, receivedAt: receivedAt()) {
            closed.append(minute)
        }
        emit("hr", at: time, rr: intervals.map(\.milliseconds))
    }

    /// The growth of the Energy Expended field since the last measurement, in kJ, filed as the
    /// minute's active energy for a device without activity counters (the band's counters are
    /// its energy; the field would count it twice). The first value of a connection is the
    /// baseline (what grew while disconnected is not attributed to any minute); a smaller value
    /// than the last means the strap reset it (control point, or a restart), so the new value is
    /// what grew since the reset: never negative. The field saturates at 0xFFFF (HRS 1.0
    /// §3.1.1.3), which simply stops the growth until a reset.
    private func energyGrowth(_ value: UInt16?) -> Int {
        guard let value else { return 0 }
        defer { energyExpended = value }
        guard handles.liveActivity == nil, let last = energyExpended else { return 0 }
        return value >= last ? Int(value - last) : Int(value)
    }

    /// InfiniTime's step count: u32 LE, steps today on the watch's local clock.
    private func stepCount(_ value: UnsafeRawBufferPointer) {
        guard value.count == 4 else {
            anomaly("step count \(Hex.encode(value)) is \(value.count) bytes, not 4; not used")
            return
        }
        let total = UInt32(value[0]) | UInt32(value[1]) << 8 | UInt32(value[2]) << 16 | UInt32(value[3]) << 24
        let time = bandTime()
        let offset = utcOffsetSeconds ?? deviceOffset ?? hostOffset()
        stepsToday = total
        switch stepTracker.observe(total: total, at: time, utcOffsetSeconds: offset) {
        case .baseline, .unchanged:
            break
        case .steps(let steps):
            if let state = stepTracker.last,
               let minute = aggregator.add(countedSteps: steps, total: state, at: time, utcOffsetSeconds: offset, receivedAt: receivedAt()) {
                closed.append(minute)
            }
        case .gap(let steps, let from, let to, let reason):
            if let state = stepTracker.last {
                gaps.append(StepGap(steps: steps, from: from, to: to, reason: reason, utcOffsetSeconds: offset, total: state))
            }
        }
        emit("steps", at: time)
    }

    private func rsc(_ value: UnsafeRawBufferPointer) {
        do {
            let measurement = try RSCMeasurement(parsingAll: value)
            cadence = Int(measurement.instantaneousCadence)
            emit("rsc", at: bandTime())
        } catch {
            anomaly("RSC measurement \(Hex.encode(value)) is malformed: \(error)")
        }
    }

    private func battery(_ value: UnsafeRawBufferPointer) {
        do {
            batteryPercent = Int(try BatteryLevel(parsingAll: value).percent)
            emit("battery", at: bandTime())
        } catch {
            anomaly("battery level \(Hex.encode(value)) is malformed: \(error)")
        }
    }

    private func reportRRRejections() {
        let example = "\(SampleWriter.millisecondsText(rrRejections.example)) ms \(rrRejections.reason)"
        anomaly("RR intervals not used: \(rrRejections.count) in the minute from band time \(rrRejections.minute) (last: \(example))")
        rrRejections = RRRejections()
    }

    private func anomaly(_ what: String) {
        anomalies += 1
        report(.anomaly(what))
    }

    private func emit(_ kind: String, at time: UInt32, rr: [Double] = []) {
        received?()
        report(.reading(LiveReading(time: Date(timeIntervalSince1970: TimeInterval(time)), kind: kind, heartRate: lastHeartRate,
                                    rrMilliseconds: rr, stepsToday: stepsToday, cadence: cadence, batteryPercent: batteryPercent,
                                    sensorContact: lastContact, energyExpendedKilojoules: energyExpended.map(Int.init))))
    }
}

/// The RR intervals the plausibility rules excluded in one minute: counted, reported once.
struct RRRejections {
    var minute: UInt32 = 0
    var count = 0
    var example: UInt16 = 0
    var reason: StaticString = ""

    mutating func add(_ interval: UInt16, _ why: StaticString, minute: UInt32) {
        self.minute = minute
        count += 1
        example = interval
        reason = why
    }
}
