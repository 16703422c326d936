/// Which flash pages hold what (4 KB pages, an nRF52's; docs/firmware.md, "Flash"). The board
/// must offer at least ``pageCount`` pages (start.c and the scripted test board offer exactly that).
///
/// | pages | what | written by |
/// |---|---|---|
/// | 0–1 | boot record, alternately | ``BootRecord`` |
/// | 2–3 | the band's state log: keys and acknowledged position | BandFirmwareCore's `FlashStateLog` |
/// | 4–13 | the minute ring, one 24-byte slot per record | BandFirmwareCore's `FlashMinuteLog` |
/// | 14–15 | the BLE host's bonds, alternately | ``FlashBondLog`` |
public enum FlashLayout {
    public static let bootPages = 0..<2
    public static let statePages = 2..<4
    public static let ringPages = 4..<14
    public static let bondPages = 14..<16
    public static var pageCount: Int { bondPages.upperBound }
}

/// What the application found in its flash pages at boot, for the flash report (message 0x86).
public struct FlashRecoveryReport: Equatable {
    /// Minute records recovered into the ring.
    public var records: UInt32 = 0
    /// Slots neither erased nor valid (a record cut by a reset, or damaged) that were skipped.
    public var damagedSlots: UInt32 = 0
    /// The sequence number the next minute record gets.
    public var nextSequence: UInt32 = 0
    /// The minute start (Unix s) of the newest record in flash, 0 with none: where the band's
    /// clock stood, so a host that starts it again never sets it back before minutes it holds.
    public var newestMinuteStart: UInt32 = 0

    public init(records: UInt32 = 0, damagedSlots: UInt32 = 0, nextSequence: UInt32 = 0, newestMinuteStart: UInt32 = 0) {
        self.records = records
        self.damagedSlots = damagedSlots
        self.nextSequence = nextSequence
        self.newestMinuteStart = newestMinuteStart
    }
}
