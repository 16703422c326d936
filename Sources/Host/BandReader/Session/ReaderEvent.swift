import FoundationEssentials

/// What a reader session reports as it goes; the `band` command prints these for people or as
/// NDJSON. Sent synchronously from the session's thread.
public enum ReaderEvent: Sendable {
    case connecting(address: String, attempt: Int)
    /// The link is up and discovery told what the device is.
    case connected(mtu: Int, kind: BandKind)
    case paired(readerID: UInt64)
    case authenticated
    case clockSet(BandClockSetting)
    /// The band's clock was read and left alone; how far ahead of the host it is, in seconds.
    case clockChecked(bandOffsetFromHost: Int?)
    case device(BandDeviceInfo, batteryPercent: Int?)
    /// A history transfer was announced: `count` records from `firstSequence`; `gap` records the
    /// reader asked for no longer exist on the band (reported, never silent).
    case historyTransferStarted(firstSequence: UInt32, count: UInt32, gap: UInt32)
    case historyProgress(received: Int, of: Int)
    /// A verified transfer was stored together with the cursor, then acknowledged.
    case historyCommitted(minutes: Int, cursor: HistoryCursor, acknowledged: Bool)
    /// A transfer failed its checks and was discarded; the next fetch starts at the same cursor.
    case historyDiscarded(String)
    case historyComplete(minutes: Int)
    case streaming
    case reading(LiveReading)
    case liveMinutesStored(count: Int)
    /// Live notifications the device sent faster than ``LiveFloodGuard`` admits, dropped since
    /// the last such report (at most one a second).
    case readingsDropped(count: Int)
    /// A reading that was not used (damaged, or contradicting the previous one).
    case anomaly(String)
    case disconnected(String)
    case reconnecting(after: Duration)
    case stopped
    /// The store could not take a write (unreachable, restarting, busy past its timeout): the
    /// session goes on, history unacknowledged and live minutes spooled.
    case storeUnavailable(StoreOutage)
    /// The store took a write again; `replayedMinutes` came from the spool.
    case storeAvailable(replayedMinutes: Int)
    /// A batch of history or live minutes was committed: the rows it wrote and how long the
    /// writer took (see ``StoreWriteTiming``). Printed by `band --json` only; the load bench
    /// (bench/postgres/load.sh) takes its commit latencies from it.
    case storeWrite(StoreWriteTiming)
}

/// One committed store write as the gateway saw it: the rows a batch wrote and the wall time of
/// the writer's call, from its first statement to COMMIT's return (the read of the provisional
/// minutes a batch supersedes, the transaction, and the commit, durable on return: fsync on
/// SQLite, the server's WAL flush on PostgreSQL). Measured with the monotonic clock around the
/// call, so it includes waiting for the database (a lock, a busy server, a core) — the latency a
/// gateway has before it may acknowledge.
public struct StoreWriteTiming: Sendable, Equatable {
    public enum Batch: String, Sendable { case history, live }
    public var batch: Batch
    /// Samples inserted or replaced (unchanged ones write nothing).
    public var rows: Int
    public var duration: Duration

    public init(batch: Batch, rows: Int, duration: Duration) {
        self.batch = batch
        self.rows = rows
        self.duration = duration
    }
}

/// The state of a store outage, as `band stream` shows it ("store unreachable, N minutes spooled").
public struct StoreOutage: Sendable, Equatable {
    /// The store's failure.
    public var reason: String
    /// Live minutes waiting in the spool.
    public var spooledMinutes: Int
    /// Live minutes the spool could not take this time (it was full).
    public var droppedMinutes: Int
    /// When the store is tried next.
    public var retryIn: Duration
    /// A history sync waits for the store (the band keeps its records until then).
    public var historyDeferred: Bool

    public init(reason: String, spooledMinutes: Int, droppedMinutes: Int, retryIn: Duration, historyDeferred: Bool) {
        self.reason = reason
        self.spooledMinutes = spooledMinutes
        self.droppedMinutes = droppedMinutes
        self.retryIn = retryIn
        self.historyDeferred = historyDeferred
    }
}

/// One line of `band stream`: the latest of everything, after one notification (`kind` says
/// which; RR intervals are those of this measurement only).
public struct LiveReading: Sendable, Equatable {
    /// Band time of the reading (estimated from the band's last counter snapshot for heart rate).
    public var time: Date
    /// What this reading was: "hr", "activity", "rsc", "battery".
    public var kind: String
    public var heartRate: Int?
    /// RR intervals in milliseconds carried by this measurement.
    public var rrMilliseconds: [Double]
    public var stepsToday: UInt32?
    public var cadence: Int?
    public var batteryPercent: Int?
    /// Whether the heart-rate sensor reports skin contact (nil: it does not say). A reading
    /// without contact is shown but not stored.
    public var sensorContact: Bool?
    /// A strap's cumulative Energy Expended, kJ since its last reset (nil: not sent).
    public var energyExpendedKilojoules: Int?

    public init(time: Date, kind: String, heartRate: Int? = nil, rrMilliseconds: [Double] = [], stepsToday: UInt32? = nil,
                cadence: Int? = nil, batteryPercent: Int? = nil, sensorContact: Bool? = nil, energyExpendedKilojoules: Int? = nil) {
        self.sensorContact = sensorContact
        self.energyExpendedKilojoules = energyExpendedKilojoules
        self.time = time
        self.kind = kind
        self.heartRate = heartRate
        self.rrMilliseconds = rrMilliseconds
        self.stepsToday = stepsToday
        self.cadence = cadence
        self.batteryPercent = batteryPercent
    }
}
