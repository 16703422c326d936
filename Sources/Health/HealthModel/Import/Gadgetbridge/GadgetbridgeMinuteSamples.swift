import FoundationEssentials

/// The samples one device's rows of one activity-sample table make, fed in time order: a
/// step-count sample per minute with steps, a heart-rate sample per reading, and sleep as runs
/// of consecutive minutes of one stage (one sleep-analysis sample per run, not per minute).
public struct GadgetbridgeMinuteSamples: Sendable {
    public let device: GadgetbridgeDevice
    private let deviceInfo: DeviceInfo
    private var sleep: GadgetbridgeSleepTracker
    private var run: (stage: Int, start: Int64, end: Int64)?

    /// Gadgetbridge's activity samples are one a minute.
    public static let minute: Int64 = 60

    public init(device: GadgetbridgeDevice, sleep meaning: GadgetbridgeSleepMeaning) {
        self.device = device
        deviceInfo = device.deviceInfo
        sleep = meaning.tracker()
    }

    public enum Made: Sendable {
        case quantity(QuantitySample)
        case category(CategorySample)
    }

    /// The samples `minute` (already checked: no ``GadgetbridgeMinute/problem(now:)``) makes,
    /// including a sleep run it ends.
    public mutating func add(_ minute: GadgetbridgeMinute, into made: (Made) throws -> Void) rethrows {
        let start = Date(timeIntervalSince1970: Double(minute.timestamp))
        if let steps = minute.steps, steps > 0 {
            try made(.quantity(QuantitySample(type: .stepCount, quantity: Quantity(Double(steps), .count), start: start,
                                              end: start.addingTimeInterval(Double(Self.minute)), device: deviceInfo,
                                              syncIdentifier: device.syncIdentifier("steps", minute.timestamp))))
        }
        if let heartRate = minute.measuredHeartRate {
            try made(.quantity(QuantitySample(type: .heartRate, quantity: Quantity(Double(heartRate), .countPerMinute),
                                              start: start, end: start, device: deviceInfo,
                                              syncIdentifier: device.syncIdentifier("hr", minute.timestamp))))
        }
        let stage = sleep.stage(rawKind: minute.rawKind)
        if let open = run, stage != open.stage || minute.timestamp != open.end {
            try made(.category(sleepSample(open)))
            run = nil
        }
        if let stage {
            if run == nil { run = (stage, minute.timestamp, minute.timestamp) }
            run?.end = minute.timestamp + Self.minute
        }
    }

    /// The sleep run still open at the device's last row.
    public mutating func finish(into made: (Made) throws -> Void) rethrows {
        if let open = run { try made(.category(sleepSample(open))) }
        run = nil
    }

    /// Keyed by the run's start; its version is its end, so that a later export in which the
    /// night went on replaces the shorter run and an identical one changes nothing.
    private func sleepSample(_ run: (stage: Int, start: Int64, end: Int64)) -> CategorySample {
        CategorySample(type: .sleepAnalysis, value: run.stage, start: Date(timeIntervalSince1970: Double(run.start)),
                       end: Date(timeIntervalSince1970: Double(run.end)), device: deviceInfo,
                       syncIdentifier: device.syncIdentifier("sleep", run.start), syncVersion: run.end)
    }
}
