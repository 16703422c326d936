/// The faults of one run, gathered from flags and the scenario, with their own random stream
/// (so changing a fault rate never changes the sensor data).
struct FaultPlan {
    var dropRate = 0.0
    var corruptRate = 0.0
    var disconnectRate = 0.0
    var clockDriftPPM = 0.0
    var initialBattery: Int?
    /// Pending reboots and disconnects, as run time since boot, soonest first.
    var rebootTimes: [Int64] = []
    var disconnectTimes: [Int64] = []
    /// Armed until it has fired once.
    var disconnectMidHistory = false
    var random: Xoshiro256StarStar

    init(_ specs: [FaultSpec], random: Xoshiro256StarStar) {
        self.random = random
        for spec in specs {
            switch spec {
            case .disconnectMidHistory: disconnectMidHistory = true
            case .disconnectAt(let d): disconnectTimes.append(d.wholeMilliseconds)
            case .disconnectRandom(let p): disconnectRate = p
            case .rebootAt(let d): rebootTimes.append(d.wholeMilliseconds)
            case .drop(let p): dropRate = p
            case .corrupt(let p): corruptRate = p
            case .clockDrift(let ppm): clockDriftPPM = ppm
            case .battery(let percent): initialBattery = percent
            }
        }
        rebootTimes.sort()
        disconnectTimes.sort()
    }

    /// What happens to one outgoing notification.
    enum NotificationFate { case deliver, drop, corrupt(bit: Int) }

    mutating func fate(ofNotificationWithValueLength length: Int) -> NotificationFate {
        if random.chance(dropRate) { return .drop }
        if length > 0, random.chance(corruptRate) { return .corrupt(bit: Int(random.next() % UInt64(length * 8))) }
        return .deliver
    }

    mutating func shouldDisconnectAfterSend() -> Bool { random.chance(disconnectRate) }

    /// Removes and reports whether a scheduled event at or before `runTime` is due.
    static func takeDue(_ times: inout [Int64], runTime: Int64) -> Bool {
        guard let first = times.first, first <= runTime else { return false }
        times.removeFirst()
        return true
    }
}
