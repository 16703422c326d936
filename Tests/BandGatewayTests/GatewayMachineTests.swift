import BandReader
import SeededRandom
import Testing
@testable import BandGateway

/// The gateway's decisions, driven by scripted events on a fake clock: who is connected to
/// when, how long an absent device waits, how often it is logged, and what a keystore change
/// or a stop does.
struct GatewayMachineTests {
    let start = ContinuousClock.now
    let band = GatewayDevice(address: "sim:/run/band.sock", kind: .bandkit, person: nil, paired: true)
    let strap = GatewayDevice(address: "sim:/run/strap.sock", kind: .heartRateStrap, person: "alice", paired: true)

    func machine(seed: UInt64 = 1) -> GatewayMachine {
        GatewayMachine(backoff: ReconnectBackoff(initial: .seconds(1), maximum: .seconds(60)), stopGrace: .milliseconds(4500),
                       random: SplitMix64(state: seed))
    }

    func at(_ seconds: Double) -> ContinuousClock.Instant { start.advanced(by: .milliseconds(Int64(seconds * 1000))) }

    func starts(_ actions: [GatewayMachine.Action]) -> [String] {
        actions.compactMap { if case .start(let device, _) = $0 { device.address } else { nil } }
    }

    func stops(_ actions: [GatewayMachine.Action]) -> [String] {
        actions.compactMap { if case .stop(let address) = $0 { address } else { nil } }
    }

    func logs(_ actions: [GatewayMachine.Action]) -> [String] {
        actions.compactMap { if case .log(_, _, let text) = $0 { text } else { nil } }
    }

    func waitingUntil(_ machine: GatewayMachine, _ address: String) -> ContinuousClock.Instant? {
        if case .waiting(let until) = machine.phase(of: address) { until } else { nil }
    }

    @Test func everyLoadedDeviceIsTriedAtOnceAndEachBacksOffOnItsOwn() {
        var gateway = machine()
        let first = gateway.devicesLoaded([strap, band], at: at(0))
        #expect(starts(first) == [band.address, strap.address])
        #expect(gateway.phase(of: band.address) == .attempting(attempt: 1, connected: false))
        _ = gateway.connected(strap.address, at: at(0.2))
        let failed = gateway.attemptEnded(band.address, progressed: false, error: "connect: no such file", at: at(0.5))
        #expect(logs(failed).count == 1 && logs(failed)[0].contains("not reachable (connect: no such file)"), "\(failed)")
        let retry = try! #require(waitingUntil(gateway, band.address))
        // Attempt 0 waits within [½, 1] s of the 1 s initial delay.
        #expect(retry >= at(1.0) && retry <= at(1.5), "\(retry - at(0.5))")
        #expect(gateway.nextWake == retry, "the strap's running session needs no timer")
        #expect(gateway.tick(at: retry.advanced(by: .milliseconds(-1))).isEmpty)
        let again = gateway.tick(at: retry)
        #expect(again == [.start(band, attempt: 2)])
        #expect(gateway.phase(of: strap.address) == .attempting(attempt: 1, connected: true), "the strap is untouched")
    }

    @Test func aDeviceThatStaysAwayCostsOneTimerAndALogLinePerBackoffStepThenSilence() {
        var gateway = machine(seed: 7)
        var lines = logs(gateway.devicesLoaded([band], at: at(0)))
        var now = at(0)
        var waits: [Duration] = []
        for _ in 0..<200 {
            now = now.advanced(by: .milliseconds(100))
            lines += logs(gateway.attemptEnded(band.address, progressed: false, error: "connect: refused", at: now))
            let retry = try! #require(waitingUntil(gateway, band.address))
            waits.append(retry - now)
            #expect(gateway.nextWake == retry)
            #expect(gateway.tick(at: retry.advanced(by: .milliseconds(-1))).isEmpty, "nothing happens between attempts")
            now = retry
            #expect(starts(gateway.tick(at: now)) == [band.address])
        }
        // 1, 2, 4, 8, 16, 32 s, then the 60 s cap: seven lines after "paired", none for the
        // next 193 attempts.
        #expect(lines.count == 1 + 7, "\(lines)")
        #expect(lines.last!.contains("retrying about every 60 s without further messages"), "\(lines)")
        #expect(waits.suffix(100).allSatisfy { $0 >= .seconds(30) && $0 <= .seconds(60) }, "capped, jittered: \(waits.suffix(5))")
        #expect(Set(waits.suffix(100)).count > 50, "the jitter varies the waits")
        let back = logs(gateway.connected(band.address, at: now))
        #expect(back == ["connected after 201 attempts"], "\(back)")
    }

    @Test func aSessionThatGotSomewhereStartsTheBackoffOverAndSaysItDisconnected() {
        var gateway = machine()
        _ = gateway.devicesLoaded([band], at: at(0))
        var now = at(0)
        for _ in 0..<6 {
            now = now.advanced(by: .seconds(1))
            _ = gateway.attemptEnded(band.address, progressed: false, error: "refused", at: now)
            now = waitingUntil(gateway, band.address)!
            _ = gateway.tick(at: now)
        }
        _ = gateway.connected(band.address, at: now)
        let lost = gateway.attemptEnded(band.address, progressed: true, error: "link lost", at: now.advanced(by: .seconds(300)))
        #expect(logs(lost).count == 1 && logs(lost)[0].hasPrefix("disconnected: link lost; reconnecting in"), "\(lost)")
        let retry = waitingUntil(gateway, band.address)!
        #expect(retry - now.advanced(by: .seconds(300)) <= .seconds(1), "back to the initial delay")
    }

    @Test func aDevicePairedWhileRunningIsStartedAndNothingElseIsTouched() {
        var gateway = machine()
        _ = gateway.devicesLoaded([band], at: at(0))
        _ = gateway.connected(band.address, at: at(1))
        let added = gateway.devicesLoaded([band, strap], at: at(60))
        #expect(starts(added) == [strap.address])
        #expect(stops(added).isEmpty)
        #expect(gateway.devicesLoaded([band, strap], at: at(61)).isEmpty, "the same keystore again changes nothing")
    }

    @Test func aForgottenDeviceIsDroppedAtOnceWhenWaitingAndAfterItsSessionEndsWhenRunning() {
        var gateway = machine()
        _ = gateway.devicesLoaded([band, strap], at: at(0))
        _ = gateway.attemptEnded(strap.address, progressed: false, error: "refused", at: at(0.1))
        _ = gateway.connected(band.address, at: at(0.2))
        let forgotten = gateway.devicesLoaded([], at: at(10))
        #expect(stops(forgotten) == [band.address], "the running session is asked to end")
        #expect(gateway.phase(of: strap.address) == nil, "the waiting one is dropped with its timer")
        #expect(gateway.phase(of: band.address) == .stopping)
        #expect(gateway.nextWake == nil)
        let ended = gateway.attemptEnded(band.address, progressed: true, error: nil, at: at(10.2))
        #expect(starts(ended).isEmpty)
        #expect(gateway.phase(of: band.address) == nil)
        #expect(gateway.devices.isEmpty)
    }

    @Test func aDevicePairedAgainWhileItsOldSessionEndsStartsAfreshAfterIt() {
        var gateway = machine()
        _ = gateway.devicesLoaded([band], at: at(0))
        _ = gateway.devicesLoaded([], at: at(5))
        #expect(gateway.devicesLoaded([band], at: at(6)).isEmpty, "not while the old session still runs")
        let ended = gateway.attemptEnded(band.address, progressed: false, error: nil, at: at(7))
        #expect(ended.contains(.start(band, attempt: 1)), "\(ended)")
    }

    @Test func aChangedEntryRestartsTheSessionWithTheNewPerson() {
        var gateway = machine()
        _ = gateway.devicesLoaded([strap], at: at(0))
        var moved = strap
        moved.person = "bob"
        let changed = gateway.devicesLoaded([moved], at: at(30))
        #expect(stops(changed) == [strap.address])
        let ended = gateway.attemptEnded(strap.address, progressed: true, error: nil, at: at(30.5))
        #expect(ended.contains(.start(moved, attempt: 1)), "\(ended)")
        #expect(gateway.devices == [moved])
    }

    @Test func aStopEndsRunningSessionsDropsTimersAndExitsWhenTheLastHasEnded() {
        var gateway = machine()
        _ = gateway.devicesLoaded([band, strap], at: at(0))
        _ = gateway.attemptEnded(strap.address, progressed: false, error: "refused", at: at(0.1))
        let stop = gateway.stopRequested(at: at(20))
        #expect(stops(stop) == [band.address])
        #expect(!stop.contains { if case .exit = $0 { true } else { false } })
        #expect(gateway.nextWake == at(24.5), "only the grace deadline")
        #expect(gateway.tick(at: at(21)).isEmpty, "no new attempt while stopping")
        #expect(gateway.devicesLoaded([band, strap, GatewayDevice(address: "sim:/x", kind: .bandkit, person: nil, paired: true)], at: at(21)).isEmpty)
        #expect(gateway.attemptEnded(band.address, progressed: true, error: nil, at: at(21.5)) == [.exit(abandoned: [])])
        #expect(gateway.tick(at: at(30)).isEmpty, "exits once")
    }

    @Test func aSessionThatDoesNotEndWithinTheGraceIsAbandonedSoTheProcessStillExitsInTime() {
        var gateway = machine()
        _ = gateway.devicesLoaded([band], at: at(0))
        _ = gateway.stopRequested(at: at(1))
        #expect(gateway.tick(at: at(5.4)).isEmpty)
        let late = gateway.tick(at: at(5.5))
        #expect(late.last == .exit(abandoned: [band.address]), "\(late)")
    }

    @Test func aStopWithNothingRunningExitsAtOnce() {
        var gateway = machine()
        _ = gateway.devicesLoaded([], at: at(0))
        #expect(gateway.stopRequested(at: at(1)).last == .exit(abandoned: []))
    }
}
