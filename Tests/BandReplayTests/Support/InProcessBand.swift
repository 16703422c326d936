import BandFirmware
import BandLink
import Foundation
import Synchronization

/// The simulated band on its own thread, reached through socketpairs (the in-process
/// counterpart of `bandsim serve`; same shape as BandReaderTests' harness). One band second
/// passes every ``tickPeriod`` of host time; ``now`` is the band's true time, the clock the
/// reader is given.
final class InProcessBand: @unchecked Sendable {
    let tickPeriod: Duration
    private let band: SimulatedBand
    private let lock = NSLock()
    private var pendingLinks: [SeqPacketLink] = []
    private var bandSide: SeqPacketLink?
    private let trueTimeMilliseconds: Atomic<Int64>
    private let stopped = Atomic<Bool>(false)
    private let wake: (read: Int32, write: Int32)
    private let finished = DispatchSemaphore(value: 0)
    private var started = false

    init(_ configuration: BandConfiguration, tickPeriod: Duration) throws {
        self.tickPeriod = tickPeriod
        band = try SimulatedBand(configuration: configuration)
        trueTimeMilliseconds = Atomic(band.trueTime.milliseconds)
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw LinkError.closed }
        _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
        _ = fcntl(fds[1], F_SETFL, O_NONBLOCK)
        wake = (fds[0], fds[1])
    }

    deinit {
        stop()
        close(wake.read)
        close(wake.write)
    }

    var now: Date { Date(timeIntervalSince1970: Double(trueTimeMilliseconds.load(ordering: .acquiring)) / 1000) }

    func openLink() throws -> SeqPacketLink {
        let (readerSide, bandSide) = try SeqPacketLink.pair()
        lock.lock()
        pendingLinks.append(bandSide)
        lock.unlock()
        poke()
        return readerSide
    }

    func start() {
        started = true
        let thread = Thread { [unowned self] in
            run()
            finished.signal()
        }
        thread.stackSize = 4 << 20
        thread.start()
    }

    func stop() {
        guard started, !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        poke()
        finished.wait()
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
            lock.unlock()
            for link in links {
                if let old = bandSide?.pollDescriptor { poller.unwatch(old) }
                band.connect(link)
                bandSide = link
                if let fd = link.pollDescriptor { poller.watch(fd) }
            }
            band.pump()
            if !band.isConnected, let old = bandSide {
                if let fd = old.pollDescriptor { poller.unwatch(fd) }
                bandSide = nil
            }
            let now = ContinuousClock.now
            if now >= nextTick {
                band.advance(by: .seconds(1))
                trueTimeMilliseconds.store(band.trueTime.milliseconds, ordering: .releasing)
                nextTick = max(nextTick.advanced(by: tickPeriod), now.advanced(by: tickPeriod / 4))
            }
            _ = try? poller.wait(until: band.hasPendingWork ? now : nextTick)
            if poller.isReady(wake.read) { _ = drain.withUnsafeMutableBytes { read(wake.read, $0.baseAddress, $0.count) } }
        }
        band.disconnect(reason: "test finished")
    }
}

/// The reader's clock for a recorded session: the band's time as of the last PDU received.
///
/// The reader reads its clock right after a notification arrives; a recorder stamps the
/// notification as it arrives. With a band whose clock jumps a second every few milliseconds,
/// those two reads could straddle a jump. Freezing the clock at each arrival makes them the
/// same reading — the property a wall clock has to within microseconds in real use.
final class ArrivalClock: ATTBearer, @unchecked Sendable {
    private let inner: any ATTBearer
    private let source: () -> Date
    private let lock = NSLock()
    private var latest: Date

    init(_ inner: any ATTBearer, source: @escaping () -> Date) {
        self.inner = inner
        self.source = source
        latest = source()
    }

    var now: Date {
        lock.lock()
        defer { lock.unlock() }
        return latest
    }

    var microseconds: Int64 { Int64((now.timeIntervalSince1970 * 1_000_000).rounded()) }

    var mtu: Int {
        get { inner.mtu }
        set { inner.mtu = newValue }
    }
    var pollDescriptor: Int32? { inner.pollDescriptor }
    func send(_ pdu: UnsafeRawBufferPointer) throws(LinkError) { try inner.send(pdu) }
    func receive(into buffer: UnsafeMutableRawBufferPointer, timeout: Duration?) throws(LinkError) -> Int? {
        let length = try inner.receive(into: buffer, timeout: timeout)
        if length != nil {
            lock.lock()
            latest = source()
            lock.unlock()
        }
        return length
    }
    func close() { inner.close() }
}
