import CommandKit
import Foundation
import HealthHTTP
import HealthModel
import HealthStore
import JSONOutput

/// `/events`: the store's change feed as server-sent events. Every stream of the server waits on
/// one ``ChangeBroadcast`` (one inotify watch of a SQLite store's directory, or one connection
/// LISTENing for `NOTIFY bandkit_changes` on PostgreSQL, per process) and on its client's socket,
/// so a page that is closed ends its stream at once; it wakes at least every second to see
/// whether the server is stopping. Sends `event: change` with the new anchor when the person's
/// data changed after the stream's anchor, and a comment every 15 seconds to keep proxies and the
/// idle timeout from closing a quiet stream. When the watch fails, the client gets an `event:
/// error` that says only that (the details, which name the deployment, go to the server's log)
/// and the stream ends; the browser reconnects after `retry`.
final class DashboardEvents: HTTPStream, @unchecked Sendable {
    static let failureMessage = "the store's change feed is unavailable; the page reconnects by itself"
    private let broadcast: ChangeBroadcast
    private var anchor: Anchor
    private var sentHello = false
    private let stopping: @Sendable () -> Bool
    private var quietSince = ContinuousClock.now
    private var subscription: ChangeBroadcast.Subscription?
    private var failuresSeen = 0
    private var failed = false

    init(broadcast: ChangeBroadcast, after anchor: Anchor, stopping: @escaping @Sendable () -> Bool) {
        self.broadcast = broadcast
        self.anchor = anchor
        self.stopping = stopping
    }

    func next(_ client: HTTPClient) -> [UInt8]? {
        if !sentHello {
            sentHello = true
            return Array("retry: 2000\nevent: hello\ndata: \(anchor.rawValue)\n\n".utf8)
        }
        if failed { return nil }
        if subscription == nil {
            do {
                let subscription = try broadcast.subscribe()
                self.subscription = subscription
                failuresSeen = broadcast.state.failures
                // Commits between the page's anchor and the subscription.
                if let current = try broadcast.change(after: anchor) { return change(current) }
            } catch {
                return failure(error)
            }
        }
        guard let subscription else { return nil }
        while !stopping() {
            switch client.wait(for: subscription.descriptor, milliseconds: 1000) {
            case .left: return nil
            case .signalled:
                let state = subscription.acknowledge()
                if state.failures > failuresSeen {
                    failed = true
                    return Array("event: error\ndata: \(JSON.quoted(Self.failureMessage))\n\n".utf8)
                }
                if let latest = state.anchor, latest > anchor { return change(latest) }
            case .timedOut: break
            }
            if ContinuousClock.now - quietSince > .seconds(15) {
                quietSince = .now
                return Array(": keep-alive\n\n".utf8)
            }
        }
        return nil
    }

    private func change(_ current: Anchor) -> [UInt8] {
        anchor = current
        quietSince = .now
        return Array("event: change\ndata: \(current.rawValue)\n\n".utf8)
    }

    private func failure(_ error: any Error) -> [UInt8] {
        failed = true
        CommandRunner.printError("health serve: the change feed failed: \(error)")
        return Array("event: error\ndata: \(JSON.quoted(Self.failureMessage))\n\n".utf8)
    }
}
