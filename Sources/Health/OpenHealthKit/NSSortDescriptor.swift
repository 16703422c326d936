import Foundation

#if !canImport(Darwin)
/// HealthKit code sorts with `NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: false)`;
/// Foundation on Linux has no key-value coding and marks `init(key:ascending:)` unavailable. This
/// initializer (a better match for a `String` key) makes that spelling compile: the two sample
/// keys become the key paths `\HKSample.startDate` and `\HKSample.endDate`; any other key a
/// key path sample queries refuse (errorInvalidArgument).
extension NSSortDescriptor {
    public convenience init(key: String, ascending: Bool) {
        switch key {
        case HKSampleSortIdentifierStartDate: self.init(keyPath: \HKSample.startDate, ascending: ascending)
        case HKSampleSortIdentifierEndDate: self.init(keyPath: \HKSample.endDate, ascending: ascending)
        default: self.init(keyPath: \HKObject.uuid, ascending: ascending, comparator: { _, _ in .orderedSame })
        }
    }
}
#endif

extension NSSortDescriptor {
    /// `startDate`, `endDate`, or nil for any other sort.
    var sampleSortKey: String? {
        #if canImport(Darwin)
        return key == HKSampleSortIdentifierStartDate || key == HKSampleSortIdentifierEndDate ? key : nil
        #else
        let starts: [AnyKeyPath] = [\HKSample.startDate, \HKQuantitySample.startDate, \HKCategorySample.startDate, \HKWorkout.startDate]
        let ends: [AnyKeyPath] = [\HKSample.endDate, \HKQuantitySample.endDate, \HKCategorySample.endDate, \HKWorkout.endDate]
        if starts.contains(keyPath) { return HKSampleSortIdentifierStartDate }
        if ends.contains(keyPath) { return HKSampleSortIdentifierEndDate }
        return nil
        #endif
    }
}
