/// What a committed write must survive.
///
/// The store runs SQLite in WAL mode with `synchronous=NORMAL`: a commit appends its pages to
/// the WAL with `write()` and returns; the WAL is fsynced only when it is checkpointed. Such a
/// commit survives a crash of the process (the kernel holds the pages) but not a power loss or
/// a kernel crash, which may drop the last commits — harmless while the data still exists
/// elsewhere, fatal when someone erases it because the commit was reported.
///
/// ``beforeAcknowledgement`` is for the commit that precedes an irreversible step outside the
/// store, such as acknowledging history to a band, which then erases the records. That one
/// transaction runs with `synchronous=FULL`, which in WAL mode fsyncs the WAL before COMMIT
/// returns (SQLite, "PRAGMA synchronous": "the WAL file is synchronized before each
/// transaction commit"). fsync covers the whole file, so every earlier ordinary commit in the
/// WAL becomes durable with it. Chosen over a `wal_checkpoint(FULL)`, which would also copy
/// every page into the database file and fsync both files: one fsync of the WAL is the least
/// that makes the commit durable. Live writes stay ordinary: the band keeps its records until
/// acknowledged, so losing a provisional live minute loses nothing the next sync cannot restore.
public enum Durability: Sendable, Equatable {
    /// Survives a crash of the process; a power loss may drop it (`synchronous=NORMAL`).
    case ordinary
    /// Survives a power loss once the write returns: the WAL is fsynced at commit.
    case beforeAcknowledgement
}
