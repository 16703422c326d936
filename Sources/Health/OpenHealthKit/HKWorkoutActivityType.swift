internal import HealthModel

/// The kind of a workout (HealthKit `HKWorkoutActivityType`), Apple's raw values. The store keeps
/// the case name (`highIntensityIntervalTraining`), as HealthModel's activity vocabulary does; a stored
/// kind this enum does not have reads back as ``other``.
public enum HKWorkoutActivityType: UInt, CaseIterable, Sendable {
    case americanFootball = 1, archery, australianFootball, badminton, baseball, basketball, bowling, boxing,
         climbing, cricket, crossTraining, curling, cycling, dance, danceInspiredTraining, elliptical,
         equestrianSports, fencing, fishing, functionalStrengthTraining, golf, gymnastics, handball, hiking,
         hockey, hunting, lacrosse, martialArts, mindAndBody, mixedMetabolicCardioTraining, paddleSports, play,
         preparationAndRecovery, racquetball, rowing, rugby, running, sailing, skatingSports, snowSports, soccer,
         softball, squash, stairClimbing, surfingSports, swimming, tableTennis, tennis, trackAndField,
         traditionalStrengthTraining, volleyball, walking, waterFitness, waterPolo, waterSports, wrestling, yoga,
         barre, coreTraining, crossCountrySkiing, downhillSkiing, flexibility, highIntensityIntervalTraining,
         jumpRope, kickboxing, pilates, snowboarding, stairs, stepTraining, wheelchairWalkPace, wheelchairRunPace,
         taiChi, mixedCardio, handCycling, discSports, fitnessGaming, cardioDance, socialDance, pickleball, cooldown
    case other = 3000

    /// The store's name: HealthModel's activity vocabulary, whose names are these case names.
    var storeName: String { String(describing: self) }

    private static let byStoreName = Dictionary(uniqueKeysWithValues: allCases.map { ($0.storeName, $0) })

    /// A stored name in any spelling the vocabulary accepts (the case name, or the kebab case older
    /// stores hold); a name it does not have reads as ``other``.
    init(storeName: String) {
        let canonical = WorkoutActivityType(name: storeName)?.rawValue ?? storeName
        self = Self.byStoreName[canonical] ?? .other
    }
}
