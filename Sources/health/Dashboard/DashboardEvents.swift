import Foundation
import HealthHTTP
import HealthModel
import HealthStore

/// `/events`: the store's change feed as server-sent events. Waits with one ``ChangeWatch`` for
/// the stream's life — inotify on the WAL of a SQLite store, one connection LISTENing for
/// `NOTIFY bandkit_changes` on PostgreSQL — in slices of a second so that a stopping server ends
/// the stream promptly; sends `event: change`
/// with the new anchor when the anchor moves and a comment every 15 seconds to keep proxies and
/// the idle timeout from closing a quiet stream. Reads the anchor only: a writer's lock never
/// blocks it (WAL readers).
final class DashboardEvents: HTTPStream, @unchecked Sendable {
    private let store: HealthStore
    private var anchor: Anchor
    private var sentHello = false
    private let stopping: @Sendable () -> Bool
    private var quietSince = ContinuousClock.now
    /// Made at the first wait, so a failure to set it up reaches the client as `event: error`.
    private var watch: ChangeWatch?
    /// After an error the stream ends (the browser reconnects after `retry`), instead of
    /// sending the same error as fast as the loop can run.
    private var failed = false

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
        while !stopping() && !failed {
            do {
                if watch == nil { watch = try store.changeWatch() }
                if let current = try watch!.wait(after: anchor, timeout: .seconds(1)) {
                    anchor = current
                    quietSince = .now
                    return Array("event: change\ndata: \(current.rawValue)\n\n".utf8)
                }
            } catch {
                failed = true
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
