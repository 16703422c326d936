import BandLink
import BandTestSupport
import BandWire
import Foundation

/// The server side of a scripted ATT conversation, after BlueZ's unit/test-gatt.c: the test
/// lists the PDUs the client must send and the ones the server answers with, in order, and the
/// peer plays them on its own thread over a `SOCK_SEQPACKET` socketpair.
///
/// Every mismatch is recorded with the step number (and both PDUs in hex) and reported by
/// ``finish()``: a client that sends something else, sends too much, or sends too early fails.
final class ScriptedATTPeer: @unchecked Sendable {
    enum Step {
        /// The client must send exactly these bytes next.
        case expect(String)
        /// The server sends these bytes.
        case send(String)
        /// The client must send nothing for this long (e.g. no second request while one is in flight).
        case silence(Duration)
        /// The server waits this long before its next step.
        case pause(Duration)
        /// The server hangs up.
        case hangUp
        /// The client must close the link within this time, sending nothing before.
        case expectClose(within: Duration)
    }

    let client: SeqPacketLink
    private let server: SeqPacketLink
    private let steps: [Step]
    private let lock = NSLock()
    private var failures: [String] = []
    private let done = DispatchSemaphore(value: 0)

    init(mtu: Int = 23, _ steps: [Step]) throws {
        let (client, server) = try SeqPacketLink.pair(mtu: mtu)
        server.mtu = 517
        self.client = client
        self.server = server
        self.steps = steps
        let thread = Thread { [self] in
            play()
            done.signal()
        }
        thread.start()
    }

    private func record(_ failure: String) {
        lock.lock()
        failures.append(failure)
        lock.unlock()
    }

    private func play() {
        for (index, step) in steps.enumerated() {
            do {
                switch step {
                case .expect(let hex):
                    guard let got = try server.receive(timeout: .seconds(5)) else {
                        record("step \(index): expected \(hex) from the client, got nothing within 5 s")
                        return
                    }
                    if got != bytes(hex) {
                        record("step \(index): expected \(Hex.encode(bytes(hex))), client sent \(Hex.encode(got))")
                        return
                    }
                case .send(let hex):
                    try server.send(bytes(hex))
                case .silence(let duration):
                    if let got = try server.receive(timeout: duration) {
                        record("step \(index): expected silence, client sent \(Hex.encode(got))")
                        return
                    }
                case .pause(let duration):
                    Thread.sleep(forTimeInterval: Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
                case .hangUp:
                    server.close()
                    return
                case .expectClose(let within):
                    do {
                        if let got = try server.receive(timeout: within) {
                            record("step \(index): expected the client to close, it sent \(Hex.encode(got))")
                        } else {
                            record("step \(index): the client did not close the link within \(within)")
                        }
                    } catch LinkError.closed {
                        // As required.
                    }
                    return
                }
            } catch {
                record("step \(index): link error \(error)")
                return
            }
        }
        // After the script, the client must not have sent anything more.
        do {
            if let extra = try server.receive(timeout: .milliseconds(50)) {
                record("after the script: client sent \(Hex.encode(extra))")
            }
        } catch LinkError.closed {
            // The client hung up: nothing more was sent.
        } catch {
            record("after the script: link error \(error)")
        }
    }

    /// Waits for the script to end and returns every mismatch (empty when the client behaved).
    func finish() -> [String] {
        if done.wait(timeout: .now() + 10) == .timedOut { record("script did not finish within 10 s") }
        lock.lock()
        defer { lock.unlock() }
        return failures
    }
}
