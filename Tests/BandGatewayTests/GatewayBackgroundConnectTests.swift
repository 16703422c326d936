import BandReader
import SeededRandom
import Testing
@testable import BandGateway

/// The machine's decisions for devices the system connects in the background (BlueZ's Add
/// Device): watched once, never tried on a timer while away, started when the link comes up and
/// the backoff allows, unwatched when forgotten or at a stop; a device that cannot be watched
/// falls back to the timer.
struct GatewayBackgroundConnectTests {
    let start = ContinuousClock.now
    let band = GatewayDevice(address: "00:AA:01:00:00:24", kind: .bandkit, person: nil, paired: true)
    let strap = GatewayDevice(address: "00:AA:01:00:00:31", kind: .heartRateStrap, person: "alice", paired: false)
    let socketBand = GatewayDevice(address: "sim:/run/band.sock", kind: .bandkit, person: nil, paired: true)

    func machine() -> GatewayMachine {
        GatewayMachine(backoff: ReconnectBackoff(initial: .seconds(1), maximum: .seconds(60)), stopGrace: .milliseconds(4500),
                       random: SplitMix64(state: 3), inBackground: { !$0.address.hasPrefix("sim:") })
    }

    func at(_ seconds: Double) -> ContinuousClock.Instant { start.advanced(by: .milliseconds(Int64(seconds * 1000))) }

    func starts(_ actions: [GatewayMachine.Action]) -> [String] {
        actions.compactMap { if case .start(let device, _) = $0 { device.address } else { nil } }
    }

    func logs(_ actions: [GatewayMachine.Action]) -> [String] {
        actions.compactMap { if case .log(_, _, let text) = $0 { text } else { nil } }
    }

    func watches(_ actions: [GatewayMachine.Action]) -> [String] {
        actions.compactMap { if case .watch(let address) = $0 { address } else { nil } }
    }

    func unwatches(_ actions: [GatewayMachine.Action]) -> [String] {
        actions.compactMap { if case .unwatch(let address) = $0 { address } else { nil } }
    }

    @Test func aBluetoothDeviceIsWatchedOnceAndAwayItCostsNoTimerAndNoAttempt() {
        var gateway = machine()
        let loaded = gateway.devicesLoaded([band, socketBand], at: at(0))
        #expect(watches(loaded) == [band.address])
        #expect(starts(loaded) == [socketBand.address], "the socket device is tried at once; the Bluetooth one waits for its link")
        #expect(gateway.nextWake == nil, "nothing to wake for while the band is away")
        for second in stride(from: 1.0, through: 3600, by: 60) {
            #expect(gateway.tick(at: at(second)).isEmpty)
        }
        #expect(watches(gateway.devicesLoaded([band, socketBand], at: at(3600))).isEmpty, "a reload does not watch it again")
    }

    @Test func theLinkComingUpStartsASessionAtOnce() {
        var gateway = machine()
        _ = gateway.devicesLoaded([band], at: at(0))
        #expect(gateway.linkUp(band.address, at: at(42)) == [.start(band, attempt: 1)])
        #expect(gateway.phase(of: band.address) == .attempting(attempt: 1, connected: false))
        #expect(gateway.linkUp(band.address, at: at(42.1)).isEmpty, "a running session is not started twice")
    }

    @Test func aLinkThatComesBackBeforeTheBackoffWaitsForIt() {
        var gateway = machine()
        _ = gateway.devicesLoaded([band], at: at(0))
        _ = gateway.linkUp(band.address, at: at(1))
        // The session fails at once on a link that stays up: the kernel's reconnecting must
        // not turn into a busy loop of sessions.
        let failed = gateway.attemptEnded(band.address, progressed: false, error: "ATT: unlikely error", at: at(1.2))
        #expect(failed.contains { if case .log(_, _, let text) = $0 { text.contains("session failed (ATT: unlikely error); next attempt when the kernel connects it again") } else { false } }, "\(failed)")
        guard case .waiting(let until) = gateway.phase(of: band.address) else { Issue.record("not waiting"); return }
        #expect(gateway.nextWake == at(31.2), "no attempt until the link is announced again; only its release is timed")
        #expect(gateway.linkUp(band.address, at: at(1.3)).isEmpty, "the backoff is not over")
        #expect(gateway.nextWake == until, "now its timer counts")
        #expect(starts(gateway.tick(at: until)) == [band.address])
    }

    @Test func aLinkThatWentDownBeforeTheBackoffEndedIsNotUsed() {
        var gateway = machine()
        _ = gateway.devicesLoaded([band], at: at(0))
        _ = gateway.linkUp(band.address, at: at(1))
        _ = gateway.attemptEnded(band.address, progressed: true, error: "link lost", at: at(100))
        _ = gateway.linkUp(band.address, at: at(100.1))
        _ = gateway.linkDown(band.address, at: at(100.2))
        #expect(gateway.nextWake == nil)
        #expect(gateway.tick(at: at(200)).isEmpty, "no session on a link that is gone")
        #expect(gateway.linkUp(band.address, at: at(300)) == [.start(band, attempt: 2)])
    }

    /// Kernel: "the band's link dropped" and, a moment later, "here is its new link" — while the
    /// session on the old link is still ending. The new link is the next session's.
    @Test func aLinkHandedOverWhileTheOldSessionStillEndsStartsTheNextSession() {
        var gateway = machine()
        _ = gateway.devicesLoaded([band], at: at(0))
        #expect(starts(gateway.linkUp(band.address, at: at(1))) == [band.address])
        _ = gateway.connected(band.address, at: at(2))
        _ = gateway.linkDown(band.address, at: at(50))
        #expect(gateway.linkUp(band.address, at: at(50.5)).isEmpty, "the old session has not ended yet")
        _ = gateway.attemptEnded(band.address, progressed: true, error: "link lost", at: at(51))
        let until = try! #require({ if case .waiting(let until) = gateway.phase(of: band.address) { until } else { nil } }())
        #expect(gateway.nextWake == until, "the new link waits only for the backoff")
        #expect(gateway.tick(at: until) == [.start(band, attempt: 1)])
    }

    @Test func forgettingADeviceUnwatchesItAtOnceOrOnceItsSessionEnded() {
        var gateway = machine()
        _ = gateway.devicesLoaded([band, strap], at: at(0))
        _ = gateway.linkUp(strap.address, at: at(1))
        let forgotten = gateway.devicesLoaded([], at: at(2))
        #expect(unwatches(forgotten) == [band.address], "the waiting band at once; the strap's session must end first")
        #expect(forgotten.contains(.stop(address: strap.address)))
        let ended = gateway.attemptEnded(strap.address, progressed: true, error: nil, at: at(3))
        #expect(unwatches(ended) == [strap.address])
        #expect(gateway.devices.isEmpty)
    }

    @Test func aChangedEntryIsWatchedAfreshOnceItsSessionEnded() {
        var gateway = machine()
        _ = gateway.devicesLoaded([band], at: at(0))
        _ = gateway.linkUp(band.address, at: at(1))
        var renamed = band
        renamed.person = "bob"
        #expect(gateway.devicesLoaded([renamed], at: at(2)).contains(.stop(address: band.address)))
        let ended = gateway.attemptEnded(band.address, progressed: true, error: nil, at: at(3))
        #expect(unwatches(ended) == [band.address] && watches(ended) == [band.address], "\(ended)")
        #expect(starts(ended).isEmpty, "the new entry waits for a link too")
        #expect(gateway.linkUp(band.address, at: at(4)) == [.start(renamed, attempt: 1)])
    }

    /// Gateway: "watch the band" — kernel: "its link is up already, and no channel of it is
    /// yours yet" — gateway: waits, never tears the link down (what tripped the 6.1 kernel's
    /// BUG in the radio guest) — kernel hands the channel over — gateway: "start its session".
    @Test func aLinkUpBeforeItsChannelIsHandedOverIsWaitedForNeverDropped() {
        var gateway = machine()
        #expect(watches(gateway.devicesLoaded([band], at: at(0))) == [band.address])
        let held = gateway.linkHeldElsewhere(band.address, at: at(0.1))
        #expect(held.count == 1 && logs(held) == ["already connected: starting once the kernel hands its link over"], "\(held)")
        #expect(gateway.nextWake == nil)
        #expect(gateway.linkUp(band.address, at: at(0.4)) == [.start(band, attempt: 1)])
    }

    /// A link reported held elsewhere once the session runs, or while the gateway stops, says nothing.
    @Test func aLinkHeldElsewhereIsNotLoggedForARunningSessionOrAStoppingGateway() {
        var gateway = machine()
        _ = gateway.devicesLoaded([band, strap], at: at(0))
        _ = gateway.linkUp(band.address, at: at(1))
        #expect(gateway.linkHeldElsewhere(band.address, at: at(1.1)).isEmpty, "the band's session is running")
        _ = gateway.stopRequested(at: at(2))
        #expect(gateway.linkHeldElsewhere(strap.address, at: at(2.1)).isEmpty, "stopping: nothing is dropped")
        #expect(gateway.linkHeldElsewhere(socketBand.address, at: at(2.2)).isEmpty, "not a background device")
    }

    @Test func stoppingUnwatchesEveryBluetoothDeviceSoTheKernelStopsConnectingThem() {
        var gateway = machine()
        _ = gateway.devicesLoaded([band, strap, socketBand], at: at(0))
        _ = gateway.linkUp(band.address, at: at(1))
        let stop = gateway.stopRequested(at: at(2))
        #expect(Set(unwatches(stop)) == [band.address, strap.address])
        #expect(stop.contains(.stop(address: band.address)))
        #expect(gateway.linkUp(strap.address, at: at(2.5)).isEmpty, "nothing starts while stopping")
    }

    func releases(_ actions: [GatewayMachine.Action]) -> [String] {
        actions.compactMap { if case .release(let address) = $0 { address } else { nil } }
    }

    /// Kernel: hands the band's link over — the session fails on it (its encryption never
    /// completes) and closes the channel — the link stays up, so no channel would ever be handed
    /// over again. Gateway: after the release delay, "drop that link"; the kernel reconnects it
    /// (the band is still on its list) and hands the new link over.
    @Test func aSessionThatFailsOnALinkThatStaysUpHasTheLinkDroppedSoItIsHandedOverAgain() {
        var gateway = machine()
        _ = gateway.devicesLoaded([band, strap], at: at(0))
        #expect(starts(gateway.linkUp(band.address, at: at(1))) == [band.address])
        _ = gateway.attemptEnded(band.address, progressed: false, error: "raise security to medium (no answer within 20.0 seconds)", at: at(21))
        #expect(gateway.nextWake == at(51), "the link is left to the kernel for 30 s")
        #expect(releases(gateway.tick(at: at(50.9))).isEmpty)
        let released = gateway.tick(at: at(51))
        #expect(releases(released) == [band.address], "\(released)")
        #expect(logs(released).contains { $0.hasPrefix("its link stayed up for 30 s with no session on it") }, "\(released)")
        #expect(gateway.nextWake == nil, "released once; then only the kernel's handover counts")
        #expect(gateway.tick(at: at(120)).isEmpty)
        _ = gateway.linkDown(band.address, at: at(51.2))
        #expect(gateway.linkUp(band.address, at: at(53)) == [.start(band, attempt: 2)])
    }

    @Test func aLinkThatDropsOrIsHandedOverAgainAfterAFailedSessionIsNeverDropped() {
        var gateway = machine()
        _ = gateway.devicesLoaded([band, strap], at: at(0))
        _ = gateway.linkUp(band.address, at: at(1))
        _ = gateway.linkUp(strap.address, at: at(1))
        _ = gateway.attemptEnded(band.address, progressed: false, error: "ATT: timed out", at: at(21))
        _ = gateway.attemptEnded(strap.address, progressed: true, error: "link lost", at: at(21))
        _ = gateway.linkUp(strap.address, at: at(22))
        _ = gateway.linkDown(band.address, at: at(25))
        #expect(releases(gateway.tick(at: at(100))).isEmpty, "the band's link went by itself; the strap has a new one")
        #expect({ if case .attempting = gateway.phase(of: strap.address) { true } else { false } }(), "the strap's new link is used")
    }

    @Test func aLinkIsNotDroppedWhileTheGatewayStopsOrAfterItsDeviceIsForgotten() {
        var gateway = machine()
        _ = gateway.devicesLoaded([band, strap], at: at(0))
        _ = gateway.linkUp(band.address, at: at(1))
        _ = gateway.linkUp(strap.address, at: at(1))
        _ = gateway.attemptEnded(band.address, progressed: false, error: "ATT: timed out", at: at(21))
        _ = gateway.attemptEnded(strap.address, progressed: false, error: "ATT: timed out", at: at(21))
        #expect(unwatches(gateway.devicesLoaded([band], at: at(22))) == [strap.address])
        let stop = gateway.stopRequested(at: at(23))
        #expect(releases(stop + gateway.tick(at: at(60))).isEmpty)
    }

    @Test func aDeviceThatCannotBeWatchedIsTriedOnATimerInstead() {
        var gateway = machine()
        _ = gateway.devicesLoaded([band], at: at(0))
        let failed = gateway.watchFailed(band.address, error: "mgmt Add Device on hci0: Not Supported", at: at(0.1))
        #expect(starts(failed) == [band.address])
        #expect(failed.contains { if case .log(.warning, _, let text) = $0 { text.contains("Not Supported") } else { false } })
        _ = gateway.attemptEnded(band.address, progressed: false, error: "connect: timed out", at: at(20))
        #expect(gateway.nextWake != nil, "back on its backoff timer")
        let stop = gateway.stopRequested(at: at(21))
        #expect(unwatches(stop).isEmpty, "it was never on the kernel's list")
    }
}
