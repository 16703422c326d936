/// How a simulated band is built: everything that makes two runs identical when equal.
public struct BandConfiguration: Sendable {
    /// Seeds every random choice except pairing keys and challenges (see ``deterministicSecrets``).
    public var seed: UInt64 = 1
    /// True time at boot, which is also what the band's clock says at boot.
    public var start: BandInstant
    /// The wearer's (and the band's initial) UTC offset, in 15-minute units.
    public var timeZoneQuarterHours: Int8 = 0
    public var scenario: Scenario = .day
    /// Minute records the flash ring holds (10 080 = 7 days).
    public var historyCapacity = 10_080
    /// On a freshly formatted flash, simulate this many days before `start` so a reader has
    /// history to sync at once.
    public var historyDays = 0
    public var faults: [FaultSpec] = []
    public var confirmation: PairingConfirmation = .auto
    public var wearer = Wearer()
    /// Draw pairing keys and challenges from the seeded PRNG instead of the CSPRNG, so a test
    /// conversation is byte-for-byte reproducible. Never for a band anyone pairs with for real.
    public var deterministicSecrets = false
    public var deviceName = "BandKit Band"

    public init(start: BandInstant) { self.start = start }
}

/// How the band answers a pairing request.
public enum PairingConfirmation: String, Sendable, CaseIterable {
    /// Accept at once (CI, demos).
    case auto
    /// Ask on the terminal and wait for y/n (the event loop keeps running meanwhile).
    case ask
    /// Refuse every pairing.
    case deny
}
