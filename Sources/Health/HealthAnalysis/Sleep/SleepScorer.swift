/// Sleep/wake scoring of minute epochs from wrist actigraphy with the pulse as a second signal.
///
/// The actigraphy part is Cole–Kripke's (R. J. Cole, D. F. Kripke, W. Gruen, D. J. Mullaney,
/// J. C. Gillin, "Automatic sleep/wake identification from wrist activity", *Sleep* 15(5),
/// 461–469, 1992): for 1-minute epochs (zero-crossing mode) a minute is scored awake when
///
///     D = 0.001 × (106·A₋₄ + 54·A₋₃ + 58·A₋₂ + 76·A₋₁ + 230·A₀ + 74·A₊₁ + 67·A₊₂) ≥ 1
///
/// where Aₖ is the activity of the minute k minutes away. A band records steps, not raw
/// accelerometer counts, so Aₖ here is the minute's step count: one step in a quiet minute gives
/// D = 0.23 (still asleep, a turn in bed), five steps give 1.15 (awake, got up).
///
/// Steps miss quiet wakefulness (lying awake, reading in bed) completely, which is where
/// actigraphy is known to over-score sleep (Sadeh 2011, "The role and validity of actigraphy in
/// sleep medicine", *Sleep Med Rev* 15:259). The band's pulse is the second signal: heart rate
/// falls during sleep, by about 10–20 % from quiet wake (Trinder et al. 2001, "Autonomic
/// activity during human sleep as a function of time and sleep stage", *J Sleep Res* 10:253).
/// Each minute adds
///
///     H = max(0, HR̃ / baseline − 1) / 0.12
///
/// to D, where HR̃ is the median pulse of the 5 minutes centred on the minute (one noisy reading
/// does not wake anyone) and `baseline` the night's sleeping pulse, the 10th percentile of the
/// window's worn minutes. A pulse 12 % over the sleeping pulse therefore scores awake on its
/// own; smaller rises add to movement.
///
/// Scored minutes are then rescored with Webster's rules as Cole et al. applied them
/// (J. B. Webster et al., "An activity-based sleep monitor system for ambulatory use",
/// *Sleep* 5(4):389–399, 1982):
/// (a) after ≥ 4 minutes awake the next 1 minute asleep becomes awake; (b) after ≥ 10, the next 3;
/// (c) after ≥ 15, the next 4; (d) ≤ 6 minutes asleep between ≥ 10 awake on each side become
/// awake; (e) ≤ 10 asleep between ≥ 20 awake on each side too.
///
/// Minutes without a pulse (band not worn, minute missing) are ``SleepState/unknown``: the
/// band cannot say the wearer slept. Pure and deterministic: no clock, no I/O.
public enum SleepScorer {
    public static let weights: [Double] = [106, 54, 58, 76, 230, 74, 67]  // A₋₄ … A₊₂
    public static let scale = 0.001
    /// Relative rise of the pulse over the sleeping baseline that on its own scores a minute awake.
    public static let heartRateRiseForWake = 0.12
    /// Percentile of the worn minutes' pulse taken as the sleeping baseline.
    public static let baselinePercentile = 0.10

    public static func score(_ epochs: [SleepEpoch]) -> [SleepState] {
        let count = epochs.count
        guard count > 0 else { return [] }
        let baseline = sleepingBaseline(epochs)
        var states = [SleepState](repeating: .unknown, count: count)
        for index in 0..<count where epochs[index].isWorn {
            var d = 0.0
            for (offset, weight) in weights.enumerated() {
                let neighbour = index + offset - 4
                guard neighbour >= 0, neighbour < count else { continue }
                d += weight * (epochs[neighbour].steps ?? 0)
            }
            d *= scale
            if let baseline, let pulse = smoothedHeartRate(epochs, at: index) {
                d += max(0, pulse / baseline - 1) / heartRateRiseForWake
            }
            states[index] = d < 1 ? .asleep : .awake
        }
        return rescore(states)
    }

    /// The night's sleeping pulse: the given percentile of the worn minutes' heart rate.
    public static func sleepingBaseline(_ epochs: [SleepEpoch]) -> Double? {
        let rates = epochs.compactMap(\.heartRate).filter { $0 > 0 }.sorted()
        guard !rates.isEmpty else { return nil }
        return rates[min(rates.count - 1, Int(Double(rates.count) * baselinePercentile))]
    }

    /// The median pulse of the worn minutes among the 5 centred on `index`.
    static func smoothedHeartRate(_ epochs: [SleepEpoch], at index: Int) -> Double? {
        var window: [Double] = []
        for neighbour in max(0, index - 2)...min(epochs.count - 1, index + 2) {
            if let rate = epochs[neighbour].heartRate { window.append(rate) }
        }
        guard !window.isEmpty else { return nil }
        window.sort()
        return window.count % 2 == 1 ? window[window.count / 2]
            : (window[window.count / 2 - 1] + window[window.count / 2]) / 2
    }

    /// Webster's rescoring rules (a)–(e), on runs of asleep and awake minutes; unknown minutes
    /// break runs and are never changed.
    public static func rescore(_ input: [SleepState]) -> [SleepState] {
        var states = input
        // (a)–(c): the first minutes of sleep after a long enough wake run.
        var awakeRun = 0
        var index = 0
        while index < states.count {
            switch states[index] {
            case .awake: awakeRun += 1; index += 1
            case .unknown: awakeRun = 0; index += 1
            case .asleep:
                let rescored = awakeRun >= 15 ? 4 : awakeRun >= 10 ? 3 : awakeRun >= 4 ? 1 : 0
                var changed = 0
                while changed < rescored, index < states.count, states[index] == .asleep {
                    states[index] = .awake
                    changed += 1
                    index += 1
                }
                awakeRun = 0
                while index < states.count, states[index] == .asleep { index += 1 }
            }
        }
        // (d), (e): short sleep runs inside long wake.
        let runs = Run.runs(of: states)
        for (position, run) in runs.enumerated() where run.state == .asleep {
            guard position > 0, position + 1 < runs.count,
                  runs[position - 1].state == .awake, runs[position + 1].state == .awake else { continue }
            let before = runs[position - 1].length
            let after = runs[position + 1].length
            if (run.length <= 6 && before >= 10 && after >= 10) || (run.length <= 10 && before >= 20 && after >= 20) {
                for minute in run.start..<(run.start + run.length) { states[minute] = .awake }
            }
        }
        return states
    }
}

/// A maximal run of equal states.
struct Run: Hashable {
    var state: SleepState
    var start: Int
    var length: Int

    static func runs(of states: [SleepState]) -> [Run] {
        var runs: [Run] = []
        for (index, state) in states.enumerated() {
            if let last = runs.last, last.state == state { runs[runs.count - 1].length += 1 } else {
                runs.append(Run(state: state, start: index, length: 1))
            }
        }
        return runs
    }
}
