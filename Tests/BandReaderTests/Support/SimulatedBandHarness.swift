import BandFirmware
import BandLink
import BandProtocol
import Foundation
import Synchronization

/// A simulated band running on its own thread, reached by the reader through socketpairs: the
/// in-process counterpart of `bandsim serve`.
///
/// Simulated time advances one band second every ``tickPeriod`` of host time, so tests run a
/// band hour in seconds; PDUs from the reader are handled as soon as they arrive. The reader's
/// clock (``now``) is the simulation's true time, so the reader and the band agree on what
/// "now" is the way a host and a real band do. Every minute record the band writes is kept as
/// the truth the store is checked against.
final class SimulatedBandHarness: @unchecked Sendable {
    let tickPeriod: Duration
    private let band: SimulatedBand
    private let lock = NSLock()
    private var pendingLinks: [SeqPacketLink] = []
    private var bandSide: SeqPacketLink?
    private var truthRecords: [UInt32: MinuteRecord] = [:]
    private var commands: [(SimulatedBand) -> Void] = []
    private var logLines: [String] = []
    private let trueTimeMilliseconds: Atomic<Int64>
    private let stopped = Atomic<Bool>(false)
    private let paused = Atomic<Bool>(false)
    private let wake: (read: Int32, write: Int32)
    private var thread: Thread?
    private let finished = DispatchSemaphore(value: 0)

    init(_ configuration: BandConfiguration, tickPeriod: Duration = .microseconds(500)) throws {
        self.tickPeriod = tickPeriod
        band = try SimulatedBand(configuration: configuration)
        trueTimeMilliseconds = Atomic(band.trueTime.milliseconds)
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw LinkError.closed }
        _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
        _ = fcntl(fds[1], F_SETFL, O_NONBLOCK)
        wake = (fds[0], fds[1])
        band.replayStoredRecords { sequence, record in truthRecords[sequence] = record }
        band.onMinuteRecorded = { [unowned self] sequence, record in
            lock.lock()
            truthRecords[sequence] = record
            lock.unlock()
        }
        band.log = { [unowned self] line in
            lock.lock()
            logLines.append(line)
            lock.unlock()
        }
    }

    deinit {
        stop()
        close(wake.read)
        close(wake.write)
    }

    /// The simulation's true time, as the reader's wall clock.
    var now: Date { Date(timeIntervalSince1970: Double(trueTimeMilliseconds.load(ordering: .acquiring)) / 1000) }

    /// Opens a new link to the band, as `SeqPacketLink.connect` to `bandsim serve` would.
    func openLink() throws -> any ATTBearer {
        let (readerSide, bandSide) = try SeqPacketLink.pair()
        lock.lock()
        pendingLinks.append(bandSide)
        lock.unlock()
        poke()
        return readerSide
    }

    /// Runs `body` on the band's thread before its next step.
    func onBand(_ body: @escaping (SimulatedBand) -> Void) {
        lock.lock()
        commands.append(body)
        lock.unlock()
        poke()
    }

    /// Runs the band up to true time `target` at once, on its thread (paused or not); the
    /// reader's clock follows. With ``pause()`` first, a test puts the band at an exact second.
    func advance(to target: BandInstant) {
        let done = DispatchSemaphore(value: 0)
        onBand { [unowned self] band in
            band.advance(to: target)
            trueTimeMilliseconds.store(band.trueTime.milliseconds, ordering: .releasing)
            done.signal()
        }
        done.wait()
    }

    /// Stops simulated time (the band still answers PDUs).
    func pause() { paused.store(true, ordering: .releasing) }
    func resume() { paused.store(false, ordering: .releasing) }

    /// Every minute record the band has written, in sequence order.
    var truth: [MinuteRecord] {
        lock.lock()
        defer { lock.unlock() }
        return truthRecords.keys.sorted().map { truthRecords[$0]! }
    }

    /// The records with sequence numbers before `endSequence`: what an acknowledgement of
    /// `endSequence` lets the band erase.
    func truth(before endSequence: UInt32) -> [MinuteRecord] {
        lock.lock()
        defer { lock.unlock() }
        return truthRecords.keys.filter { $0 < endSequence }.sorted().map { truthRecords[$0]! }
    }

    var log: [String] {
        lock.lock()
        defer { lock.unlock() }
        return logLines
    }

    func start() {
        let thread = Thread { [unowned self] in
            run()
            finished.signal()
        }
        thread.stackSize = 4 << 20
        self.thread = thread
        thread.start()
    }

    func stop() {
        guard thread != nil, !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        poke()
        finished.wait()
    }

    /// Runs the band until `condition` holds for the band (checked on its thread) or `timeout`.
    func waitUntil(timeout: Duration = .seconds(30), _ condition: @escaping (SimulatedBand) -> Bool) -> Bool {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while ContinuousClock.now < deadline {
            let done = Atomic<Bool>(false)
            let checked = DispatchSemaphore(value: 0)
            onBand { band in
                done.store(condition(band), ordering: .releasing)
                checked.signal()
            }
            checked.wait()
            if done.load(ordering: .acquiring) { return true }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return false
    }

    private func poke() {
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }

    private func run() {
        var poller = Poller()
        poller.watch(wake.read)
        var nextTick = ContinuousClock.now.advanced(by: tickPeriod)
        var drain = [UInt8](repeating: 0, count: 64)
        while !stopped.load(ordering: .acquiring) {
            lock.lock()
            let links = pendingLinks
            pendingLinks = []
            let work = commands
            commands = []
            lock.unlock()
            for link in links {
                if let old = bandSide?.pollDescriptor { poller.unwatch(old) }
                band.connect(link)
                bandSide = link
                if let fd = link.pollDescriptor { poller.watch(fd) }
            }
            for body in work { body(band) }
            band.pump()
            if !band.isConnected, let old = bandSide {
                if let fd = old.pollDescriptor { poller.unwatch(fd) }
                bandSide = nil
            }
            let now = ContinuousClock.now
            if now >= nextTick {
                if !paused.load(ordering: .acquiring) {
                    band.advance(by: .seconds(1))
                    trueTimeMilliseconds.store(band.trueTime.milliseconds, ordering: .releasing)
                }
                nextTick = max(nextTick.advanced(by: tickPeriod), now.advanced(by: tickPeriod / 4))
            }
            let deadline = band.hasPendingWork ? now : nextTick
            _ = try? poller.wait(until: deadline)
            if poller.isReady(wake.read) { _ = drain.withUnsafeMutableBytes { read(wake.read, $0.baseAddress, $0.count) } }
        }
        band.disconnect(reason: "harness stopped")
    }
}
