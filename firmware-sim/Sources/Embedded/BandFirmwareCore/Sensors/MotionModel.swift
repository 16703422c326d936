/// Steps, cadence, stride and distance, one second at a time.
///
/// Distance is *derived* from steps: every step adds the current stride, so cadence × stride
/// = speed and Σ steps × stride = distance hold exactly (RSC speed and the activity counters
/// never disagree). Fractional steps and decimetres carry over between seconds instead of being
/// rounded away.
package struct MotionModel {
    private var stepCarry = 0.0
    private var distanceCarry = 0.0
    /// A short walk from the desk (to the printer, the kitchen): seconds left of it.
    private var strollSecondsLeft = 0
    /// Slowly varying pace factor, so a walk is not a metronome.
    private var paceFactor = 1.0

    package struct Second {
        var steps: Int
        var distanceDecimetres: Int
        var cadence: Double
        var strideMetres: Double
        var speedMetresPerSecond: Double
        var running: Bool
    }

    package mutating func tick(_ segment: ScenarioSegment, wearer: Wearer, random: inout Xoshiro256StarStar) -> Second {
        var cadence = 0.0
        var stride = 0.0
        var running = false
        paceFactor += (1 - paceFactor) * 0.02 + 0.004 * random.gaussian()
        paceFactor = min(1.15, max(0.85, paceFactor))
        switch segment.kind {
        case .walk:
            cadence = (segment.cadence ?? 110) * paceFactor
            stride = (segment.strideMetres ?? wearer.walkingStrideMetres) * (0.97 + 0.03 * paceFactor)
        case .run:
            cadence = (segment.cadence ?? 165) * (0.98 + 0.02 * paceFactor)
            stride = (segment.strideMetres ?? wearer.runningStrideMetres) * paceFactor
            running = true
        case .desk:
            if strollSecondsLeft == 0, random.chance(1.0 / 900) {
                strollSecondsLeft = 15 + Int(random.unit() * 60)
            }
            if strollSecondsLeft > 0 {
                strollSecondsLeft -= 1
                cadence = 95 * paceFactor
                stride = 0.8 * wearer.walkingStrideMetres
            }
        case .sleep, .notWorn:
            strollSecondsLeft = 0
        }
        stepCarry += cadence / 60
        let steps = Int(stepCarry)
        stepCarry -= Double(steps)
        distanceCarry += Double(steps) * stride * 10
        let decimetres = Int(distanceCarry)
        distanceCarry -= Double(decimetres)
        return Second(steps: steps, distanceDecimetres: decimetres, cadence: cadence, strideMetres: stride,
                      speedMetresPerSecond: cadence * stride / 60, running: running)
    }
}
