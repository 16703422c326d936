import Foundation
import HealthHTTP
import HealthModel
import HealthStore

/// `/events`: the store's change feed as server-sent events. Waits on the store's directory
/// (``HealthStore/waitForChanges(after:timeout:recheckInterval:)``, inotify on the WAL) in
/// slices of a second so that a stopping server ends the stream promptly; sends `event: change`
/// with the new anchor when the anchor moves and a comment every 15 seconds to keep proxies and
/// the idle timeout from closing a quiet stream. Reads the anchor only: a writer's lock never
/// blocks it (WAL readers).
final class DashboardEvents: HTTPStream, @unchecked Sendable {
    private let store: HealthStore
    private var anchor: Anchor
    private var sentHello = false
    private let stopping: @Sendable () -> Bool
    private var quietSince = ContinuousClock.now

    init(store: HealthStore, after anchor: Anchor, stopping: @escaping @Sendable () -> Bool) {
        self.store = store
        self.anchor = anchor
        self.stopping = stopping
    }

    func next() -> [UInt8]? {
        if !sentHello {
            sentHello = true
            return Array("retry: 2000\nevent: hello\ndata: \(anchor.rawValue)\n\n".utf8)
        }
        while !stopping() {
            do {
                if let current = try store.waitForChanges(after: anchor, timeout: .seconds(1)) {
                    anchor = current
                    quietSince = .now
                    return Array("event: change\ndata: \(current.rawValue)\n\n".utf8)
                }
            } catch {
                return Array("event: error\ndata: \(JSONString.quoted("\(error)"))\n\n".utf8)
            }
            if ContinuousClock.now - quietSince > .seconds(15) {
                quietSince = .now
                return Array(": keep-alive\n\n".utf8)
            }
        }
        return nil
    }
}
