import Synchronization

/// Which store outage lines a gateway logs: one when the first device finds the store
/// unreachable and one when the last of them reaches it again, not one per device per live
/// write (every device reports the outage each time it spools, every 5 s: with fifty devices
/// that is ten lines a second saying the same thing). `band status` keeps each device's own
/// state ("last error"). Called from the devices' session threads.
final class StoreOutageLog: Sendable {
    private struct State {
        var down: Set<String> = []
        var replayed = 0
    }

    private let state = Mutex(State())

    /// `address` found the store unreachable: the line to log, when it is the outage's first.
    func unavailable(_ address: String, reason: String) -> String? {
        state.withLock { state in
            let first = state.down.isEmpty
            state.down.insert(address)
            return first ? "store unreachable (\(reason)): live readings go to the spool and history stays on the bands until it is back" : nil
        }
    }

    /// `address` reached the store again, replaying `replayed` spooled minutes: the line to
    /// log, when it was the last device still without it.
    func available(_ address: String, replayed: Int) -> String? {
        state.withLock { state in
            guard state.down.remove(address) != nil else {
                // A device that reached the store without having found it down (its spool
                // held minutes from an earlier run): its own line.
                return replayed > 0 ? "\(replayed) spooled minute\(replayed == 1 ? "" : "s") from an earlier run replayed" : nil
            }
            state.replayed += replayed
            guard state.down.isEmpty else { return nil }
            defer { state.replayed = 0 }
            return "store reachable again; \(state.replayed) spooled minute\(state.replayed == 1 ? "" : "s") replayed"
        }
    }
}
