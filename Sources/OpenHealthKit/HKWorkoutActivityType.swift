/// The kind of a workout (HealthKit `HKWorkoutActivityType`), Apple's raw values. The store keeps
/// the case name in kebab case (`high-intensity-interval-training`); a stored kind this enum does
/// not have reads back as ``other``.
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

    /// The store's name: the case name in kebab case.
    var storeName: String {
        var name = ""
        for character in String(describing: self) {
            if character.isUppercase {
                name += "-" + character.lowercased()
            } else {
                name.append(character)
            }
        }
        return name
    }

    private static let byStoreName = Dictionary(uniqueKeysWithValues: allCases.map { ($0.storeName, $0) })

    init(storeName: String) { self = Self.byStoreName[storeName] ?? .other }
}
