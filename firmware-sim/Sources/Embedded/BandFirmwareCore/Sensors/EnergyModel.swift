/// Active energy from the ACSM metabolic equations (ACSM's Guidelines for Exercise Testing and
/// Prescription, ch. 7), level ground:
///
/// | activity | oxygen uptake VO₂ (ml·kg⁻¹·min⁻¹) |
/// |---|---|
/// | walking, speed v in m/min | 0.1·v + 3.5 |
/// | running | 0.2·v + 3.5 |
/// | sitting at a desk | 1.3 MET = 4.55 |
/// | sleeping, band not worn | resting (3.5) |
///
/// *Active* energy is the part above rest (HealthKit's active vs basal split): VO₂ − 3.5.
/// With 5 kcal per litre of O₂, active kcal/min = (VO₂ − 3.5) × mass(kg) × 5 / 1000.
/// A 70 kg wearer walking at 80 m/min burns 2.8 active kcal/min; running at 180 m/min, 12.6.
package struct EnergyModel {
    private var carry = 0.0

    /// Active energy of one second, in 0.1 kcal units (fractions carry over).
    package mutating func tick(kind: ActivityKind, speedMetresPerSecond: Double, running: Bool, wearer: Wearer) -> Int {
        let metresPerMinute = speedMetresPerSecond * 60
        let activeVO2: Double
        if kind == .sleep || !kind.isWorn {
            activeVO2 = 0
        } else if speedMetresPerSecond > 0 {
            activeVO2 = (running ? 0.2 : 0.1) * metresPerMinute
        } else if kind == .desk {
            activeVO2 = 0.3 * 3.5
        } else {
            activeVO2 = 0
        }
        let kilocaloriesPerMinute = activeVO2 * wearer.massKilograms * 5 / 1000
        carry += kilocaloriesPerMinute / 60 * 10
        let whole = Int(carry)
        carry -= Double(whole)
        return whole
    }
}
