import BandReplay
import Testing

private let second: Int64 = 1_000_000
private let t0: Int64 = 1_700_000_000 * second

/// A timeline from (µs after t0, event) lines.
private enum Line {
    case write(UInt16, Int64)
    case notify(UInt16, Int64)
    case indicate(UInt16, Int64)
    case end(Int64)
}

private func timeline(_ lines: [Line]) -> NotificationTimeline {
    var timeline = NotificationTimeline()
    timeline.connected(at: t0)
    for line in lines {
        switch line {
        case .write(let handle, let t): timeline.clientWrote(handle: handle, at: t0 + t)
        case .notify(let handle, let t):
            [UInt8(handle)].withUnsafeBytes { timeline.serverPushed(handle: handle, value: $0, isIndication: false, at: t0 + t) }
        case .indicate(let handle, let t):
            [UInt8(handle)].withUnsafeBytes { timeline.serverPushed(handle: handle, value: $0, isIndication: true, at: t0 + t) }
        case .end(let t): timeline.disconnected(at: t0 + t)
        }
    }
    return timeline
}

private func subscribedToAll(_ handle: UInt16, _ isIndication: Bool) -> Bool? { true }
private let T = ContinuousClock.now

@Test func recordedGapsAreKeptDownToTheMicrosecond() {
    var scheduler = NotificationScheduler(timeline: timeline([.notify(8, 0), .notify(8, 2 * second), .notify(8, 2 * second + 400), .end(3 * second)]),
                                          speed: .realTime)
    scheduler.start(at: T)
    #expect(scheduler.decide(at: T, subscription: subscribedToAll) == .send(0))
    scheduler.sent(0, at: T)
    #expect(scheduler.decide(at: T, subscription: subscribedToAll) == .wait(until: T + .seconds(2)))
    #expect(scheduler.decide(at: T + .seconds(2), subscription: subscribedToAll) == .send(1))
    scheduler.sent(1, at: T + .seconds(2))
    #expect(scheduler.decide(at: T + .seconds(2), subscription: subscribedToAll) == .wait(until: T + .seconds(2) + .microseconds(400)))
    #expect(scheduler.decide(at: T + .seconds(2) + .microseconds(400), subscription: subscribedToAll) == .send(2))
    scheduler.sent(2, at: T + .seconds(2) + .microseconds(400))
    #expect(scheduler.decide(at: T + .seconds(2) + .microseconds(500), subscription: subscribedToAll) == .wait(until: T + .seconds(3)))
    #expect(scheduler.decide(at: T + .seconds(3), subscription: subscribedToAll) == .finished)
}

@Test func speedDividesEveryGap() {
    var scheduler = NotificationScheduler(timeline: timeline([.notify(8, 0), .notify(8, 10 * second)]), speed: .factor(10))
    scheduler.start(at: T)
    scheduler.sent(0, at: T)
    #expect(scheduler.decide(at: T, subscription: subscribedToAll) == .wait(until: T + .seconds(1)))
}

@Test func maxSpeedNeverWaitsOnTheClock() {
    var scheduler = NotificationScheduler(timeline: timeline([.notify(8, 0), .notify(8, 3600 * second), .end(7200 * second)]), speed: .max)
    scheduler.start(at: T)
    #expect(scheduler.decide(at: T, subscription: subscribedToAll) == .send(0))
    scheduler.sent(0, at: T)
    #expect(scheduler.decide(at: T, subscription: subscribedToAll) == .send(1))
    scheduler.sent(1, at: T)
    #expect(scheduler.decide(at: T, subscription: subscribedToAll) == .finished)
}

@Test func aPushThatFollowedAClientWriteWaitsForTheLiveWriteAndKeepsItsGap() {
    // Recorded: CCCD written at 1 s, first notification 0.5 s later.
    var scheduler = NotificationScheduler(timeline: timeline([.write(9, second), .notify(8, 1_500_000)]), speed: .realTime)
    scheduler.start(at: T)
    #expect(scheduler.decide(at: T, subscription: subscribedToAll) == .wait(until: T + .seconds(2)), "held for the write, up to the gate timeout")
    scheduler.clientWrote(handle: 9, at: T + .milliseconds(300))
    #expect(scheduler.decide(at: T + .milliseconds(300), subscription: subscribedToAll) == .wait(until: T + .milliseconds(800)))
    #expect(scheduler.decide(at: T + .milliseconds(800), subscription: subscribedToAll) == .send(0))
}

@Test func aGateTheClientNeverMeetsTimesOutAndThePushGoesAnyway() {
    var scheduler = NotificationScheduler(timeline: timeline([.write(0x20, second), .notify(0x21, 1_100_000), .notify(0x21, 1_200_000)]), speed: .realTime)
    scheduler.start(at: T)
    _ = scheduler.decide(at: T, subscription: subscribedToAll)
    #expect(scheduler.decide(at: T + .seconds(2), subscription: subscribedToAll) == .send(0))
    scheduler.sent(0, at: T + .seconds(2))
    #expect(scheduler.gatesTimedOut == 1)
    #expect(scheduler.decide(at: T + .seconds(2), subscription: subscribedToAll) == .wait(until: T + .seconds(2) + .milliseconds(100)),
            "later gaps count from when it went")
}

@Test func pushesForAHandleTheClientNeverSubscribedToAreSkippedAfterTheTimeout() {
    var scheduler = NotificationScheduler(timeline: timeline([.notify(8, 0), .notify(0x0e, 0), .notify(8, 10)]), speed: .max)
    let onlyHeartRate: NotificationScheduler.SubscriptionState = { handle, _ in handle == 0x0e }
    scheduler.start(at: T)
    #expect(scheduler.decide(at: T, subscription: onlyHeartRate) == .wait(until: T + .seconds(2)))
    #expect(scheduler.decide(at: T + .seconds(2), subscription: onlyHeartRate) == .skip(0))
    scheduler.skipped(0)
    #expect(scheduler.decide(at: T + .seconds(2), subscription: onlyHeartRate) == .send(1))
    scheduler.sent(1, at: T + .seconds(2))
    #expect(scheduler.decide(at: T + .seconds(2), subscription: onlyHeartRate) == .skip(2), "declined once, skipped at once")
    #expect(scheduler.isDeclined(8))
}

@Test func anIndicationWaitsForTheConfirmationOfThePreviousOne() {
    var scheduler = NotificationScheduler(timeline: timeline([.indicate(5, 0), .indicate(5, 1)]), speed: .max)
    scheduler.start(at: T)
    #expect(scheduler.decide(at: T, subscription: subscribedToAll) == .send(0))
    scheduler.sent(0, at: T)
    #expect(scheduler.decide(at: T, subscription: subscribedToAll) == .wait(until: T + .seconds(30)))
    scheduler.clientConfirmed()
    #expect(scheduler.decide(at: T + .milliseconds(1), subscription: subscribedToAll) == .send(1))
}

@Test func theEndWaitsForTheClientsLastRecordedWrite() {
    var scheduler = NotificationScheduler(timeline: timeline([.notify(8, 0), .write(0x20, second), .end(second + 10)]), speed: .max)
    scheduler.start(at: T)
    scheduler.sent(0, at: T)
    #expect(scheduler.decide(at: T, subscription: subscribedToAll) == .wait(until: T + .seconds(2)))
    scheduler.clientWrote(handle: 0x20, at: T + .milliseconds(5))
    #expect(scheduler.decide(at: T + .milliseconds(5), subscription: subscribedToAll) == .finished)
}

// Found by fuzz/replay: a damaged record timestamp made a gap beyond Int64 nanoseconds (292 years), and
// converting it trapped; `bandsim replay --serve` crashed instead of waiting.
@Test func gapsBeyondInt64NanosecondsSaturateInsteadOfTrapping() {
    #expect(ReplaySpeed.realTime.liveDuration(ofRecorded: 400 * 365 * 86_400 * second) == .nanoseconds(Int64.max))
    #expect(ReplaySpeed.realTime.liveDuration(ofRecorded: .min) == .nanoseconds(Int64.min))
    #expect(ReplaySpeed.factor(0.25).liveDuration(ofRecorded: .max) == .nanoseconds(Int64.max))
    #expect(ReplaySpeed.factor(10).liveDuration(ofRecorded: 10 * second) == .seconds(1))

    var scheduler = NotificationScheduler(timeline: timeline([.notify(8, 0), .notify(8, 400 * 365 * 86_400 * second)]), speed: .realTime)
    scheduler.start(at: T)
    scheduler.sent(0, at: T)
    #expect(scheduler.decide(at: T, subscription: subscribedToAll) == .wait(until: T + .nanoseconds(Int64.max)))
}

@Test func timestampsWhoseDifferenceOverflowsInt64StillGiveADueTime() {
    var recorded = NotificationTimeline()
    recorded.connected(at: .min)
    [UInt8(1)].withUnsafeBytes { recorded.serverPushed(handle: 8, value: $0, isIndication: false, at: .max) }
    var scheduler = NotificationScheduler(timeline: recorded, speed: .realTime)
    scheduler.start(at: T)
    #expect(scheduler.dueTime(.max) == T + .nanoseconds(Int64.max))
    #expect(scheduler.decide(at: T, subscription: subscribedToAll) == .wait(until: T + .nanoseconds(Int64.max)))
}
