import BandLink
import BandTestSupport
import Glibc
import Testing

@Suite("Poller and StopSignals")
struct PollerTests {
    @Test func reportsOnlyTheDescriptorsThatAreReady() throws {
        let (a, b) = try SeqPacketLink.pair()
        let (c, d) = try SeqPacketLink.pair()
        var poller = Poller()
        poller.watch(try #require(b.pollDescriptor))
        poller.watch(try #require(d.pollDescriptor))
        #expect(try poller.wait(timeout: .zero) == 0)
        try a.send(bytes("01"))
        #expect(try poller.wait(timeout: .seconds(1)) == 1)
        #expect(poller.isReady(try #require(b.pollDescriptor)))
        #expect(!poller.isReady(try #require(d.pollDescriptor)))
        _ = c
    }

    @Test func aHangUpWakesTheLoop() throws {
        let (a, b) = try SeqPacketLink.pair()
        var poller = Poller()
        let descriptor = try #require(b.pollDescriptor)
        poller.watch(descriptor)
        a.close()
        #expect(try poller.wait(timeout: .seconds(1)) == 1)
        #expect(poller.readiness(of: descriptor).contains(.hangUp))
    }

    @Test func waitingUntilAPastDeadlineReturnsAtOnce() throws {
        let (a, b) = try SeqPacketLink.pair()
        defer { a.close() }
        var poller = Poller()
        poller.watch(try #require(b.pollDescriptor))
        #expect(try poller.wait(until: ContinuousClock.now - .seconds(1)) == 0)
    }

    @Test func unwatchedDescriptorsAreForgotten() throws {
        var poller = Poller()
        poller.watch(5)
        poller.watch(7, for: [.readable, .writable])
        poller.watch(5, for: .writable)
        #expect(poller.descriptors == [5, 7])
        poller.unwatch(5)
        #expect(poller.descriptors == [7])
    }

    @Test func anInterruptedWaitResumesInsteadOfReportingATimeout() throws {
        let mock = MockSystem()
        let (a, b) = try SeqPacketLink.pair()
        var poller = Poller(system: mock.system)
        poller.watch(try #require(b.pollDescriptor))
        try a.send(bytes("01"))
        mock.fail("poll", with: .interrupted, times: 2)
        #expect(try poller.wait(timeout: .seconds(1)) == 1)
        #expect(mock.calls(named: "poll").count == 3)
    }

    @Test func pollTimeoutsRoundUpToWholeMilliseconds() throws {
        let mock = MockSystem()
        var poller = Poller(system: mock.system)
        _ = try poller.wait(timeout: .microseconds(1500))
        _ = try poller.wait(timeout: .zero)
        _ = try poller.wait(timeout: .milliseconds(-5))
        #expect(mock.calls(named: "poll").map(\.detail) == ["2", "0", "0"])
    }

    @Test func aSignalBecomesAReadableDescriptor() throws {
        let signals = try StopSignals([SIGUSR2])
        defer { signals.restore() }
        var poller = Poller()
        poller.watch(signals.pollDescriptor)
        #expect(try poller.wait(timeout: .zero) == 0)
        // Test-runner threads block signals; a command's main thread does not.
        var unblock = sigset_t(), previous = sigset_t()
        sigemptyset(&unblock)
        sigaddset(&unblock, SIGUSR2)
        pthread_sigmask(SIG_UNBLOCK, &unblock, &previous)
        raise(SIGUSR2)
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        #expect(try poller.wait(timeout: .seconds(1)) == 1)
        #expect(signals.received() == [SIGUSR2])
        #expect(signals.received() == [])
    }
}
