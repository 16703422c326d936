import BandGATT

/// The per-second clock both standard peers run on (the InfiniTime watch and the strap): true
/// time moves to the requested instant one tick (a whole simulated second, ``PeerTime``) at a
/// time; at each tick the minute that ended is finished, a reboot that is due happens instead of
/// the second's readings, the device's own second runs (``secondElapsed(into:)``), and on the
/// hour the battery drops a percent (down to 5 %), notified. One loop, so the two peers keep the
/// same order of events at a tick.
protocol SecondTickedPeer: AnyObject {
    var trueTime: PeerMilliseconds { get set }
    /// Start of the minute whose truth is being gathered.
    var minuteOpened: PeerMilliseconds { get }
    /// Instants of the reboots (battery swaps) still to come, earliest first.
    var pendingReboots: [PeerMilliseconds] { get set }
    var battery: UInt8 { get set }
    var table: PeerAttributeTable { get set }
    /// Reports the minute that ended and opens the next.
    func finishMinute()
    /// A due reboot: the device's own reset.
    func rebootNow()
    /// The device's readings of the second that just began, as notifications owed.
    func secondElapsed(into pushes: inout [PeerPush])
}

extension SecondTickedPeer {
    /// Advances true time to `time`, returning the notifications owed on the way.
    func advanceBySeconds(to time: PeerMilliseconds) -> [PeerPush] {
        var pushes: [PeerPush] = []
        while trueTime < time {
            let tick = PeerTime.nextTick(after: trueTime)
            trueTime = min(time, tick)
            guard trueTime == tick else { break }
            if PeerTime.minuteStart(of: trueTime) > minuteOpened { finishMinute() }
            if let reboot = pendingReboots.first, trueTime >= reboot {
                pendingReboots.removeFirst()
                rebootNow()
                continue
            }
            secondElapsed(into: &pushes)
            if trueTime % 3_600_000 == PeerTime.tickOffsetMs, battery > 5 {
                battery -= 1
                table.setValue(GATTUUID.Characteristic.batteryLevel, [battery])
                pushes.append(PeerPush(characteristic: GATTUUID.Characteristic.batteryLevel, value: [battery]))
            }
        }
        return pushes
    }
}
