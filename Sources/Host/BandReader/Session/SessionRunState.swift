import FoundationEssentials

/// What one ``BandSession/run(_:)`` learns and holds between the actions ``SessionMachine``
/// orders: each action's handler reads and updates it, and a new run starts from an empty one.
struct SessionRunState {
    /// The band's clock against the host's, read at connect: the live stream's first observation.
    var clockObservation: (bandTime: Double, hostTime: Date)?
    /// The battery level read with Device Information.
    var battery: Int?
    /// The store writer for the device, once Device Information named it and the store opened.
    var writer: SampleWriter?
    /// The device Device Information described: what a writer is opened for later when the
    /// store could not be opened at connect (``BandSession/openedWriter()``).
    var device: BandDeviceInfo?
    /// What a failed live write held, for the spool.
    var unwritten: [SpoolEntry] = []
    /// Minutes in the spool (what it held at connect plus what this run added).
    var spooledMinutes = 0
    /// What the journal holds of the open minute, the step gaps and the battery level.
    var journaledMinute: LiveMinute?
    var journaledGaps = 0
    var journaledBattery: SpoolEntry?
    /// The journal failed in this run (reported once).
    var journalFailed = false
}
