/// Today's cumulative counters behind the Live Activity characteristic: one run per
/// (boot epoch, local day), reset at the band's local midnight and at boot.
struct DailyCounters {
    var localDay: Int64
    var steps: UInt32 = 0
    var distanceDecimetres: UInt32 = 0
    var energyDecikilocalories: UInt32 = 0

    init(localDay: Int64) { self.localDay = localDay }

    mutating func add(_ second: SecondSample) {
        steps &+= UInt32(second.steps)
        distanceDecimetres = min(0xFF_FFFF, distanceDecimetres + UInt32(second.distanceDecimetres))
        energyDecikilocalories = min(0xFF_FFFF, energyDecikilocalories + UInt32(second.energyDecikilocalories))
    }
}
