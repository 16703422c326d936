import BandProtocol

/// The band minus its radio: sensors, clock, counters and flash, advanced one second at a time.
///
/// It knows nothing of connections. Each ``tick(at:)`` returns what happened as events, and the
/// GATT side (``SimulatedBand``) decides what to notify; nothing here points back at it.
package struct BandCore {
    package let configuration: BandConfiguration
    package var clock: BandClock
    package var flash: FlashImage
    package var counters: DailyCounters
    private var minute: MinuteAccumulator?
    private var nextMinutePartial = true
    /// The activity of the last minute recorded since boot: a walk or run continues the session
    /// across minutes (and syncs), a boot ends it (``MinuteAccumulator``).
    private var lastRecordedActivity = MinuteActivity.none
    private var motion = MotionModel()
    private var heart: HeartModel
    private var energy = EnergyModel()
    private var sensorRandom: Xoshiro256StarStar
    /// Battery in percent with fractions; flash keeps the whole part.
    package private(set) var battery: Double
    package private(set) var lastSample: SecondSample?
    /// Active energy (0.1 kcal) since the Heart Rate Control Point last reset it.
    package private(set) var energySinceReset = 0

    package struct TickEvents {
        package var sample: SecondSample
        package var recorded: (sequence: UInt32, record: MinuteRecord)?
        package var countersReset = false
        package var batteryChanged = false
    }

    package init(configuration: BandConfiguration, flash: FlashImage, random: Xoshiro256StarStar, faults: FaultPlan) {
        self.configuration = configuration
        self.flash = flash
        sensorRandom = random
        heart = HeartModel(wearer: configuration.wearer)
        let clock = BandClock(trueTime: configuration.start, bandTime: configuration.start,
                              timeZone: configuration.timeZoneQuarterHours, driftPPM: faults.clockDriftPPM, isSet: true)
        self.clock = clock
        battery = Double(faults.initialBattery ?? Int(flash.batteryLevel))
        counters = DailyCounters(localDay: clock.localDay(of: configuration.start))
    }

    package var bootEpoch: UInt16 { flash.bootEpoch }

    /// A boot: the epoch moves on, RAM state (counters, the minute in progress, Energy
    /// Expended) starts empty.
    package mutating func boot(at trueTime: BandInstant) {
        flash.bootEpoch &+= 1
        minute = nil
        lastRecordedActivity = .none
        energySinceReset = 0
        let now = clock.now(at: trueTime)
        // Booting exactly on a minute boundary loses nothing of that minute.
        nextMinutePartial = now.milliseconds.floorModulo(60_000) != 0
        counters = DailyCounters(localDay: clock.localDay(of: now))
    }

    /// One second of sensing and bookkeeping at true time `trueTime`.
    package mutating func tick(at trueTime: BandInstant, drainBattery: Bool = true) -> TickEvents {
        let bandTime = clock.now(at: trueTime)
        let wearerLocal = trueTime.seconds + Int64(configuration.timeZoneQuarterHours) * 900
        let segment = configuration.scenario.segment(atMinute: Int(wearerLocal.floorModulo(86_400) / 60))
        let moved = motion.tick(segment, wearer: configuration.wearer, random: &sensorRandom)
        var beat = heart.tick(kind: segment.kind, cadence: moved.cadence, wearer: configuration.wearer, random: &sensorRandom)
        let active = energy.tick(kind: segment.kind, speedMetresPerSecond: moved.speedMetresPerSecond,
                                 running: moved.running, wearer: configuration.wearer)
        if battery <= 5 { beat = HeartModel.Second(heartRate: nil, rrIntervals: RRList()) }
        let worn = segment.kind.isWorn
        let sample = SecondSample(worn: worn, steps: worn ? moved.steps : 0,
                                  distanceDecimetres: worn ? moved.distanceDecimetres : 0,
                                  energyDecikilocalories: worn ? active : 0,
                                  heartRate: beat.heartRate, rrIntervals: beat.rrIntervals,
                                  cadence: worn ? moved.cadence : 0, strideMetres: worn ? moved.strideMetres : 0,
                                  speedMetresPerSecond: worn ? moved.speedMetresPerSecond : 0, running: moved.running,
                                  activity: worn ? segment.kind.sessionActivity : .none)
        var events = TickEvents(sample: sample)

        let minuteStart = bandTime.seconds.floorDivided(by: 60) * 60
        if let current = minute, current.minuteStart != minuteStart {
            events.recorded = commit(current)
            minute = nil
        }
        let day = clock.localDay(of: bandTime)
        if day != counters.localDay {
            counters = DailyCounters(localDay: day)
            events.countersReset = true
        }
        // A clock past what a record can name (a drifting clock set near the end of 2105) keeps
        // the live values and counters but records no history.
        if minute == nil, MinuteRecord.canHold(minuteStart: minuteStart) {
            minute = MinuteAccumulator(minuteStart: minuteStart, utcOffset: clock.utcOffset,
                                       partial: nextMinutePartial, clockSet: clock.isSet, previousActivity: lastRecordedActivity)
            nextMinutePartial = false
        }
        minute?.add(sample)
        counters.add(sample)
        energySinceReset += sample.energyDecikilocalories
        lastSample = sample

        if drainBattery {
            let before = Int(battery.rounded(.up))
            // About 12 days on a charge, a little faster while measuring heart rate.
            battery = max(1, battery - (sample.heartRate == nil ? 0.00008 : 0.0001))
            let after = Int(battery.rounded(.up))
            if after != before {
                flash.batteryLevel = UInt8(after)
                events.batteryChanged = true
            }
        }
        return events
    }

    /// Closes the minute in progress early (its record is flagged partial) because the clock
    /// or zone changed; the next minute is flagged partial too.
    package mutating func clockWillChange() -> (sequence: UInt32, record: MinuteRecord)? {
        defer {
            minute = nil
            nextMinutePartial = true
        }
        guard var current = minute else { return nil }
        current.partial = true
        return commit(current)
    }

    /// After a clock or zone change: reset the counters if the local day is now another one.
    package mutating func clockDidChange(at trueTime: BandInstant) -> Bool {
        let day = clock.localDay(of: clock.now(at: trueTime))
        guard day != counters.localDay else { return false }
        counters = DailyCounters(localDay: day)
        return true
    }

    package mutating func resetEnergyExpended() { energySinceReset = 0 }

    package var batteryLevel: UInt8 { UInt8(Int(battery.rounded(.up))) }

    private mutating func commit(_ accumulator: MinuteAccumulator) -> (sequence: UInt32, record: MinuteRecord) {
        let record = accumulator.record
        lastRecordedActivity = record.activity
        let sequence = flash.ring.append(record)
        return (sequence, record)
    }

    /// The Live Activity value at true time `trueTime`.
    package func liveActivity(at trueTime: BandInstant) -> LiveActivity {
        let now = clock.now(at: trueTime)
        var flags: LiveActivityFlags = []
        if lastSample?.worn ?? false { flags.insert(.worn) }
        if clock.isSet { flags.insert(.clockSet) }
        return LiveActivity(timestamp: UInt32(clamping: now.seconds), utcOffset: clock.utcOffset, bootEpoch: flash.bootEpoch,
                            localDay: UInt16(clamping: counters.localDay), flags: flags, steps: counters.steps,
                            distanceDecimetres: counters.distanceDecimetres, energyDecikilocalories: counters.energyDecikilocalories)
    }
}
