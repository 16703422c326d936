import BandKitSystem
import BandLink
#if canImport(Glibc)
import Glibc
#endif

/// A ``PairingAgent`` on its own thread with its own management socket, for a process whose
/// event loop cannot watch the agent's descriptor (a peripheral whose loop only polls its
/// current connection while SMP runs underneath it).
///
/// The kernel sends management events to every management socket, so this agent sees the
/// pairing requests for its adapter no matter what the rest of the process does with its own
/// socket; nothing is shared with the caller's thread except the log function and the key
/// file (which only this agent writes). ``stop()`` (or deinit) ends and joins the thread.
public final class BackgroundPairingAgent {
    private var thread: pthread_t?
    private let stopWrite: Int32
    private let system: SystemCalls

    /// Opens the adapter's management socket, loads `keyFile`'s keys, and starts answering.
    public init(adapter name: String, keyFile: String?, log: @escaping @Sendable (String) -> Void,
                system: SystemCalls = .live) throws(LinkError) {
        self.system = system
        let adapter = try BlueZAdapter(name, system: system)
        let agent = try PairingAgent(adapter: adapter, keyStore: try BlueZCentral.keyStore(keyFile, system: system), log: log)
        if keyFile != nil { try agent.restoreKeys() }
        let pipe: (read: Int32, write: Int32)
        switch system.nonBlockingPipe() {
        case .success(let ends): pipe = ends
        case .failure(let error): throw .system("pipe", error)
        }
        stopWrite = pipe.write
        // The agent moves to the thread; this thread never touches it again.
        let work = AgentThread(agent: agent, stopRead: pipe.read, system: system, log: log)
        var handle = pthread_t()
        let context = Unmanaged.passRetained(work).toOpaque()
        let created = pthread_create(&handle, nil, { context in
            let work = Unmanaged<AgentThread>.fromOpaque(context!).takeRetainedValue()
            work.run()
            return nil
        }, context)
        guard created == 0 else {
            Unmanaged<AgentThread>.fromOpaque(context).release()
            _ = system.close(descriptor: pipe.read)
            _ = system.close(descriptor: pipe.write)
            throw .system("pthread_create", Errno(rawValue: created))
        }
        thread = handle
    }

    /// Stops answering and waits for the thread to finish. Idempotent.
    public func stop() {
        guard let thread else { return }
        self.thread = nil
        var byte: UInt8 = 1
        _ = withUnsafeBytes(of: &byte) { system.write(stopWrite, $0) }
        pthread_join(thread, nil)
        _ = system.close(descriptor: stopWrite)
    }

    deinit { stop() }
}

/// What runs on the agent's thread: one `poll()` over the management socket and the stop pipe.
private final class AgentThread: @unchecked Sendable {
    // @unchecked: handed from the creating thread to the agent thread once, then used only there.
    let agent: PairingAgent
    let stopRead: Int32
    let system: SystemCalls
    let log: @Sendable (String) -> Void

    init(agent: PairingAgent, stopRead: Int32, system: SystemCalls, log: @escaping @Sendable (String) -> Void) {
        self.agent = agent
        self.stopRead = stopRead
        self.system = system
        self.log = log
    }

    func run() {
        defer { _ = system.close(descriptor: stopRead) }
        var poller = Poller(system: system)
        poller.watch(agent.pollDescriptor)
        poller.watch(stopRead)
        do throws(LinkError) {
            while true {
                try agent.handlePendingEvents()
                try poller.wait(timeout: nil)
                if poller.isReady(stopRead) { return }
            }
        } catch {
            log("pairing agent for \(agent.adapter.name) stopped: \(error)")
        }
    }
}
