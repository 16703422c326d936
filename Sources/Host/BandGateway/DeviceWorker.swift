#if canImport(Glibc)
import Glibc
#endif
import BandKitSystem
import BandReader

/// One device's sessions, each on a thread of its own: `BandSession` is a blocking driver
/// (it waits in `poll()` on its link), so the gateway runs one per device beside its loop
/// (docs/architecture.md, "The gateway: one loop, a thread per session").
///
/// Unchecked `Sendable`: the service is touched by one attempt's thread at a time — the
/// machine starts the next attempt only after the last one ended — and by the loop only to
/// write the stop byte, which goes through a pipe.
final class DeviceWorker: @unchecked Sendable {
    let device: GatewayDevice
    let service: BandReaderService
    private let stopRead: Int32
    private let stopWrite: Int32
    private let system = SystemCalls.live
    private var thread: pthread_t?

    /// `makeService` builds the device's reader service around the stop request it is given.
    init(device: GatewayDevice, makeService: (GatewayDevice, StopRequest) throws -> BandReaderService) throws {
        let ends: (read: Int32, write: Int32)
        switch system.nonBlockingPipe() {
        case .success(let made): ends = made
        case .failure(let error): throw error
        }
        stopRead = ends.read
        stopWrite = ends.write
        let system = self.system
        let stop = StopRequest(pollDescriptor: ends.read) {
            var byte: UInt8 = 0
            _ = withUnsafeMutableBytes(of: &byte) { system.read(ends.read, into: $0) }
            return true
        }
        do { service = try makeService(device, stop) } catch {
            _ = system.close(descriptor: ends.read)
            _ = system.close(descriptor: ends.write)
            throw error
        }
        self.device = device
    }

    /// Runs one connection on a new thread; `ended` is called on that thread when it is over.
    func start(attempt: Int, ended: @escaping @Sendable (_ error: SessionError?) -> Void) throws(Errno) {
        join()
        let work = AttemptThread(worker: self, attempt: attempt, ended: ended)
        var handle = pthread_t()
        let context = Unmanaged.passRetained(work).toOpaque()
        let created = pthread_create(&handle, nil, { context in
            Unmanaged<AttemptThread>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
        guard created == 0 else {
            Unmanaged<AttemptThread>.fromOpaque(context).release()
            throw Errno(rawValue: created)
        }
        thread = handle
    }

    /// Asks the running session to end (its live minutes are committed, its link closed).
    func requestStop() {
        var byte: UInt8 = 1
        _ = withUnsafeBytes(of: &byte) { system.write(stopWrite, $0) }
    }

    /// Waits for the last attempt's thread (it has reported its end, so this is short).
    func join() {
        guard let thread else { return }
        self.thread = nil
        pthread_join(thread, nil)
    }

    /// Joins the thread and closes the stop pipe; the worker is not used again.
    func close() {
        join()
        _ = system.close(descriptor: stopRead)
        _ = system.close(descriptor: stopWrite)
    }
}

private final class AttemptThread: @unchecked Sendable {
    let worker: DeviceWorker
    let attempt: Int
    let ended: @Sendable (SessionError?) -> Void

    init(worker: DeviceWorker, attempt: Int, ended: @escaping @Sendable (SessionError?) -> Void) {
        self.worker = worker
        self.attempt = attempt
        self.ended = ended
    }

    func run() {
        do {
            _ = try worker.service.streamOnce(attempt: attempt)
            ended(nil)
        } catch {
            ended(error)
        }
    }
}
