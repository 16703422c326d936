import BandLink
import BandPeers
import BandReader
import Foundation
import HealthModel
import HealthStore
import Synchronization

/// An InfiniTime peer (BandPeers) served on a Unix socket by its own runner on a thread, `speed`
/// times faster than real time, and readers that live in the same simulated time (their `now`
/// is the peer's true time): a day crossing midnight, an hour away or a reboot in seconds.
final class WatchHarness: @unchecked Sendable {
    let directory: String
    let socket: String
    let storePath: String
    let speed: Double
    let watch: InfiniTimePeer
    let zone = TimeZone(secondsFromGMT: 3600)!
    private let truthLines = Mutex<[InfiniTimePeer.MinuteTruth]>([])
    private let start: PeerMilliseconds
    private var realStart = ContinuousClock.now
    private let stopPipe: (read: Int32, write: Int32)
    private let finished = DispatchSemaphore(value: 0)

    /// `start`: the watch's boot, true time (the watch and the wearer are at UTC+1).
    init(start: PeerMilliseconds, speed: Double, reboots: [PeerMilliseconds] = [], seed: UInt64 = 11, clockErrorMs: PeerMilliseconds = 0) throws {
        directory = NSTemporaryDirectory() + "bandkit-watch-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        socket = directory + "/watch.sock"
        storePath = directory + "/health.sqlite"
        self.speed = speed
        self.start = start
        var configuration = InfiniTimePeer.Configuration(start: start, utcOffsetSeconds: 3600)
        configuration.seed = seed
        configuration.rebootsAfter = reboots
        configuration.clockErrorMs = clockErrorMs
        // Accelerated: readings only between 5.5 s and 50.5 s of each minute, so a reading the
        // loaded machine delivers late is still filed under its own minute (see notifiedSeconds).
        configuration.notifiedSeconds = 5...50
        watch = InfiniTimePeer(configuration)
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw WatchHarnessError("pipe failed") }
        stopPipe = (fds[0], fds[1])
        let listener = try SocketPeerListener(path: socket)
        var options = PeerRunner<InfiniTimePeer>.Options()
        options.speed = speed
        let realStart = ContinuousClock.now
        // The readers' clock (now()) and the runner's simulated time start at the same instant.
        options.realStart = realStart
        self.realStart = realStart
        let runner = PeerRunner(device: watch, listener: listener, options: options)
        watch.onMinute = { [unowned self] minute in truthLines.withLock { $0.append(minute) } }
        let stopDescriptor = stopPipe.read
        // The runner and its listener are used by that thread alone from here on.
        let served = Unchecked((runner, listener))
        let thread = Thread { [finished] in
            _ = try? served.value.0.run(stop: nil, stopDescriptor: stopDescriptor)
            served.value.1.close()
            finished.signal()
        }
        thread.start()
    }

    /// The simulated true time now (what the readers' clocks say).
    func now() -> Date {
        let (seconds, attoseconds) = (ContinuousClock.now - realStart).components
        let elapsed = (Double(seconds) + Double(attoseconds) * 1e-18) * speed
        return Date(timeIntervalSince1970: Double(start) / 1000 + elapsed)
    }

    /// Real time until the simulated instant `ms`.
    func realDelay(until ms: PeerMilliseconds) -> Duration {
        let remaining = Double(ms) / 1000 - now().timeIntervalSince1970
        return .milliseconds(Int64(max(0, remaining) / speed * 1000))
    }

    /// A reader process: streams until the simulated instant `until`, on this store. Returns
    /// its events and the simulated spans during which it was streaming.
    /// `ownClock`: the reader's clock runs at real time from the watch's time at the start, the
    /// watch `speed` times faster (`band stream --keep-band-clock` against an accelerated
    /// simulator), and the watch's Current Time is read again every `ownClock` of real time.
    @discardableResult
    /// `configure` adjusts the service; `observe` sees each event as it happens (the session's thread).
    func stream(until ms: PeerMilliseconds, ownClock rereadEvery: Duration? = nil, configure: (BandReaderService) -> Void = { _ in },
                observe: @escaping (ReaderEvent) -> Void = { _ in })
        throws -> (events: [ReaderEvent], streaming: [ClosedRange<Date>], outcome: BandSession.Outcome) {
        var collected: [ReaderEvent] = []
        var spans: [ClosedRange<Date>] = []
        var began: Date?
        let service = BandReaderService(address: try BandAddress(parsing: "sim:" + socket), keystore: Keystore(path: directory + "/keys.json"),
                                        storePath: storePath, stop: StopRequest(),
                                        openLink: { [socket] _ in try SeqPacketLink.connect(path: socket) },
                                        report: { [unowned self] event in
                                            observe(event)
                                            collected.append(event)
                                            switch event {
                                            case .streaming: began = now()
                                            case .disconnected:
                                                if let start = began { spans.append(start...now()) }
                                                began = nil
                                            default: break
                                            }
                                        })
        service.now = { [unowned self] in now() }
        if let rereadEvery {
            let (began, realBegan) = (now(), ContinuousClock.now)
            service.now = { began.addingTimeInterval(Double((ContinuousClock.now - realBegan).components.attoseconds) * 1e-18
                                                     + Double((ContinuousClock.now - realBegan).components.seconds)) }
            service.setsClock = false
            service.clockRereadInterval = rereadEvery
        }
        service.timeZone = zone
        service.backoff = ReconnectBackoff(initial: .milliseconds(100), maximum: .milliseconds(200), jitter: 0)
        configure(service)
        let outcome = try service.stream(until: ContinuousClock.now.advanced(by: realDelay(until: ms)))
        if let start = began { spans.append(start...now()) }
        return (collected, spans, outcome)
    }

    /// Waits (real time) until the simulated instant `ms`.
    func wait(until ms: PeerMilliseconds) {
        let delay = realDelay(until: ms)
        Thread.sleep(forTimeInterval: Double(delay.components.seconds) + Double(delay.components.attoseconds) * 1e-18)
    }

    /// Stops the runner (after the minute in progress is reported) and returns every finished minute.
    func stop() -> [InfiniTimePeer.MinuteTruth] {
        // Past the next reading, so the minute the last reader ended in is reported too.
        wait(until: PeerMilliseconds(now().timeIntervalSince1970 * 1000) + 1500)
        var byte: UInt8 = 1
        _ = write(stopPipe.write, &byte, 1)
        finished.wait()
        close(stopPipe.read)
        close(stopPipe.write)
        return truthLines.withLock { $0 }
    }

    func removeFiles() { try? FileManager.default.removeItem(atPath: directory) }

    /// Stored step and heart-rate samples.
    func stored() throws -> (steps: [QuantitySample], heartRates: [QuantitySample]) {
        let store = try HealthStore(path: storePath)
        let steps = try store.samples(HealthQuery(type: .stepCount), as: .owner).compactMap(\.quantitySample)
        let rates = try store.samples(HealthQuery(type: .heartRate), as: .owner).compactMap(\.quantitySample)
        return (steps, rates)
    }
}

struct WatchHarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Hands a value to another thread that alone uses it from then on.
struct Unchecked<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
