#if canImport(Glibc)
import Glibc
#endif
import BandLink
import BandProtocol

/// A simulated band running its own event loop on a background thread, behind one end of a
/// `socketpair`: for tests of code that blocks on the link (a GATT client, the reader).
///
/// ```swift
/// var configuration = BandConfiguration(start: start)
/// configuration.historyDays = 1
/// configuration.deterministicSecrets = true
/// let (band, link) = try BackgroundBand.start(configuration, speed: 600)
/// let reader = try BandSession(link: link, …)      // blocking reads and writes as usual
/// …
/// let result = band.stop()                         // joins the thread
/// #expect(result.records.count == …)               // ground truth: every minute record written
/// ```
///
/// The band object lives on its thread only; the test sees it through the link and, after
/// ``stop()``, through the returned ``Result``.
public final class BackgroundBand: @unchecked Sendable {
    /// What the band did, available once it has stopped.
    public struct Result {
        public var flash: FlashImage
        /// Every minute record written while the thread ran (plus those in flash at start), in order.
        public var records: [(sequence: UInt32, record: MinuteRecord)]
        public var log: [String]
        public var ending: BandRunner.Ending?
        public var error: String?
    }

    private let band: SimulatedBand
    private let runner: BandRunner
    private let stopPipe: (read: Int32, write: Int32)
    private var thread = pthread_t()
    private var result: Result
    private let collected = Collected()
    private var stopped = false

    /// Filled on the band's thread; read after `pthread_join`, which orders the accesses.
    private final class Collected {
        var records: [(sequence: UInt32, record: MinuteRecord)] = []
        var log: [String] = []
    }

    /// Boots a band, connects it to one end of a fresh `SeqPacketLink.pair()`, starts its loop at
    /// `speed` × real time, and returns the other end for the test.
    public static func start(_ configuration: BandConfiguration, flash: FlashImage? = nil, speed: Double = 1) throws -> (BackgroundBand, SeqPacketLink) {
        let (bandSide, readerSide) = try SeqPacketLink.pair()
        let background = try BackgroundBand(configuration, flash: flash, speed: speed, link: bandSide)
        try background.launch()
        return (background, readerSide)
    }

    private init(_ configuration: BandConfiguration, flash: FlashImage?, speed: Double, link: SeqPacketLink) throws {
        band = try SimulatedBand(configuration: configuration, flash: flash)
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw LinkError.system(call: "pipe", errno: errno) }
        stopPipe = (fds[0], fds[1])
        result = Result(flash: band.flash, records: [], log: [])
        let collected = self.collected
        band.replayStoredRecords { collected.records.append(($0, $1)) }
        band.onMinuteRecorded = { collected.records.append(($0, $1)) }
        band.log = { collected.log.append($0) }
        var options = BandRunner.Options()
        options.speed = speed
        runner = BandRunner(band: band, listener: NoListener(), options: options)
        band.connect(link)
    }

    private func launch() throws {
        let context = Unmanaged.passRetained(self).toOpaque()
        let status = pthread_create(&thread, nil, { raw in
            let background = Unmanaged<BackgroundBand>.fromOpaque(raw!).takeRetainedValue()
            background.loop()
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<BackgroundBand>.fromOpaque(context).release()
            throw LinkError.system(call: "pthread_create", errno: status)
        }
    }

    private func loop() {
        do {
            result.ending = try runner.run(stop: nil, stopDescriptor: stopPipe.read)
        } catch {
            result.error = "\(error)"
        }
    }

    /// Stops the loop, waits for the thread, and reports what the band did. Idempotent.
    @discardableResult
    public func stop() -> Result {
        if !stopped {
            stopped = true
            var byte: UInt8 = 1
            _ = write(stopPipe.write, &byte, 1)
            pthread_join(thread, nil)
            close(stopPipe.read)
            close(stopPipe.write)
            band.disconnect(reason: "test ended")
            result.flash = band.flash
            result.records = collected.records
            result.log = collected.log
        }
        return result
    }

    deinit { stop() }
}

/// A listener with nothing to accept: the background band has exactly one link.
private final class NoListener: BandListener {
    var pollDescriptor: Int32 { -1 }
    func acceptLink() throws(LinkError) -> (any ATTBearer)? { nil }
    func connectionEnded() {}
    func close() {}
}
