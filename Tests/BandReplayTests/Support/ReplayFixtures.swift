import BandLink
import BandReplay
import BandTestSupport
import BandTrace
import BandWire
import Foundation

enum ReplayFixtures {
    /// A real capture from `shared/captures` beside the repository; nil if absent (tests then say they skip).
    static func capture(_ name: String) -> String? { SharedCaptures.existingPath(name) }

    static func temporaryPath(_ name: String) -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bandreplay-tests-\(getpid())")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("\(UUID().uuidString)-\(name)").path
    }

    /// Writes BandTrace's synthetic heart-rate session (a phone recording a strap) to a temp file.
    static func syntheticHeartRateTrace(notifications: Int, configure: (inout SyntheticHeartRateTrace.Configuration) -> Void = { _ in })
        throws -> (path: String, summary: SyntheticHeartRateTrace.Summary) {
        var configuration = SyntheticHeartRateTrace.Configuration()
        configuration.heartRateNotifications = notifications
        configure(&configuration)
        let path = temporaryPath("hr.log")
        let writer = try BtsnoopWriter(path: path, datalink: .h4)
        let summary = try SyntheticHeartRateTrace.write(configuration, to: writer)
        try writer.close()
        return (path, summary)
    }

    /// Reads a whole trace into a ``TraceRecording`` (damage fails the test's `#require`).
    static func record(_ path: String, keepGoing: Bool = false) throws -> (TraceRecording, TraceReplayReader.Outcome) {
        let reader = try TraceReplayReader(path: path)
        var recording = TraceRecording()
        let outcome = reader.run(keepGoing: keepGoing) { recording.consume($0) }
        return (recording, outcome)
    }
}

/// Runs `body` on its own thread and lets the test wait for its result: the replaying server
/// blocks in `poll()`, so it cannot share the test's thread with the scripted client.
final class BackgroundRun<T: Sendable>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var result: Result<T, any Error>?

    init(_ body: @escaping @Sendable () throws -> T) {
        let thread = Thread { [self] in
            result = Result { try body() }
            done.signal()
        }
        thread.start()
    }

    func wait(timeout: TimeInterval = 30) throws -> T {
        guard done.wait(timeout: .now() + timeout) == .success else { throw TimedOut() }
        return try result!.get()
    }

    struct TimedOut: Error {}
}

/// A scripted ATT client over one end of a link pair: request, then the response, in hex.
struct ScriptedClient {
    let link: any ATTBearer

    /// Sends `request` and returns the next PDU that is not a notification or indication
    /// (those are collected into `pushes`).
    func ask(_ request: String, pushes: inout [[UInt8]]) throws -> String {
        try link.send(Hex.decode(request)!)
        while true {
            guard let pdu = try link.receive(timeout: .seconds(10)) else { throw BackgroundRun<Int>.TimedOut() }
            if pdu.first == 0x1B || pdu.first == 0x1D {
                pushes.append(pdu)
                continue
            }
            return Hex.encode(pdu)
        }
    }
}

/// Sendable box for handing a non-Sendable object to the server thread.
final class Unchecked<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

/// Every PDU the peer sends until it hangs up (a replay closes the link at the recorded end).
func receiveUntilHangUp(_ link: any ATTBearer, timeout: Duration = .seconds(10), arrival: (([UInt8]) -> Void)? = nil) throws -> [[UInt8]] {
    var pdus: [[UInt8]] = []
    while true {
        let pdu: [UInt8]
        switch Result(catching: { () throws(LinkError) -> [UInt8]? in try link.receive(timeout: timeout) }) {
        case .failure(.closed): return pdus
        case .failure(let error): throw error
        case .success(nil): throw BackgroundRun<Int>.TimedOut()
        case .success(let received?): pdu = received
        }
        arrival?(pdu)
        pdus.append(pdu)
    }
}
