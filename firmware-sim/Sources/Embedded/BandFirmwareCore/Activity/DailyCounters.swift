/// Today's cumulative counters behind the Live Activity characteristic: one run per
/// (boot epoch, local day), reset at the band's local midnight and at boot.
package struct DailyCounters {
    package var localDay: Int64
    package var steps: UInt32 = 0
    package var distanceDecimetres: UInt32 = 0
    package var energyDecikilocalories: UInt32 = 0

    package init(localDay: Int64) { self.localDay = localDay }

    package mutating func add(_ second: SecondSample) {
        steps &+= UInt32(second.steps)
        distanceDecimetres = min(0xFF_FFFF, distanceDecimetres + UInt32(second.distanceDecimetres))
        energyDecikilocalories = min(0xFF_FFFF, energyDecikilocalories + UInt32(second.energyDecikilocalories))
    }
}
