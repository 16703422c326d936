#if canImport(Glibc)
import Glibc
#endif
import CPostgres

/// Waits for commits announced on PostgreSQL (`LISTEN bandkit_changes`), on a connection of its
/// own so that the store's connection stays free while a reader waits.
///
/// Sleeps in `poll(2)` on libpq's socket; a notification (or the timeout) wakes it. As with
/// ``DirectoryWatch``, the wake is a hint: the caller re-reads the change counter either way.
final class PostgresListener: ChangeWaiting {
    private let engine: PostgresEngine

    init(url: String) throws(HealthStoreError) {
        engine = try PostgresEngine.connect(url: url, readOnly: true).get()
        try engine.execute("LISTEN \(PostgresEngine.notificationChannel)").get()
    }

    func wait(milliseconds: Int32) throws {
        let socket = PQsocket(engine.handle)
        guard socket >= 0 else {  // connection lost: reconnect and listen again; the caller re-checks meanwhile
            try engine.reconnectIfNeeded().flatMap { engine.execute("LISTEN \(PostgresEngine.notificationChannel)") }.get()
            return
        }
        var entry = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        while true {
            let count = poll(&entry, 1, max(0, milliseconds))
            if count >= 0 { break }
            if errno == EINTR { continue }
            throw Errno(rawValue: errno)
        }
        if PQconsumeInput(engine.handle) == 0 {
            try engine.reconnectIfNeeded().flatMap { engine.execute("LISTEN \(PostgresEngine.notificationChannel)") }.get()
        }
        while let notification = PQnotifies(engine.handle) { PQfreemem(notification) }
    }
}

/// Something a reader sleeps on until another process may have committed.
protocol ChangeWaiting {
    func wait(milliseconds: Int32) throws
}

extension DirectoryWatch: ChangeWaiting {}
