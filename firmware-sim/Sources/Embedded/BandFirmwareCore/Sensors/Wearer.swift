/// The simulated person's constants that the models need.
///
/// Defaults are an adult of 70 kg and 1.75 m with a resting heart rate of 60 bpm; walking
/// stride ≈ 0.42 × height and running stride ≈ 0.65 × height (the usual pedometer rules).
public struct Wearer: Sendable, Hashable {
    public var massKilograms: Double = 70
    public var heightMetres: Double = 1.75
    public var restingHeartRate: Double = 60
    public var maximumHeartRate: Double = 190

    public init() {}

    public var walkingStrideMetres: Double { 0.42 * heightMetres }
    public var runningStrideMetres: Double { 0.65 * heightMetres }
}
