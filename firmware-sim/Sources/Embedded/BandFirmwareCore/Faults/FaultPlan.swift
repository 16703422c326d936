/// The faults of one run, gathered from flags and the scenario, with their own random stream
/// (so changing a fault rate never changes the sensor data).
package struct FaultPlan {
    package var dropRate = 0.0
    package var corruptRate = 0.0
    package var disconnectRate = 0.0
    package var clockDriftPPM = 0.0
    package var initialBattery: Int?
    /// Pending reboots and disconnects, as run time since boot, soonest first.
    package var rebootTimes: [Int64] = []
    package var disconnectTimes: [Int64] = []
    /// Armed until it has fired once.
    package var disconnectMidHistory = false
    package var random: Xoshiro256StarStar

    package init(_ specs: [FaultSpec], random: Xoshiro256StarStar) {
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
        rebootTimes.insertionSort(by: <)
        disconnectTimes.insertionSort(by: <)
    }

    /// What happens to one outgoing notification.
    package enum NotificationFate { case deliver, drop, corrupt(bit: Int) }

    package mutating func fate(ofNotificationWithValueLength length: Int) -> NotificationFate {
        if random.chance(dropRate) { return .drop }
        if length > 0, random.chance(corruptRate) { return .corrupt(bit: Int(random.next() % UInt64(length * 8))) }
        return .deliver
    }

    package mutating func shouldDisconnectAfterSend() -> Bool { random.chance(disconnectRate) }

    /// Removes and reports whether a scheduled event at or before `runTime` is due.
    package static func takeDue(_ times: inout [Int64], runTime: Int64) -> Bool {
        guard let first = times.first, first <= runTime else { return false }
        times.removeFirst()
        return true
    }
}
