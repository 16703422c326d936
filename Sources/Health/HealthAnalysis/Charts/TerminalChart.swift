import FoundationEssentials

/// The same chart for a shell, in Unicode block elements: one column per quarter hour (a day) or
/// per 2 hours (a week), so a 23-hour day is 92 columns and a 25-hour day 100.
///
///     heart rate  48–171 /min (column: average; ▁…█ from 40 to 180)
///     ▂▂▂▂▁▁▁▁…
///     steps       8412 (column: steps in it; █ = 612)
///     ▁ ▁  ▃█▅ …
///     sleep       ▓ asleep  ░ in bed  ▒ awake
///     ▓▓▓▓▓▓▒▓▓…
///     00    03    06 …
///
/// Columns without data are blank. Only the chart's own labels and numbers are written; the one
/// outside text, workout activities, is listed after escaping by the caller.
public enum TerminalChart {
    static let blocks: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

    public static func columnSeconds(_ data: ChartData) -> Double { data.isMultiDay ? 7200 : 900 }

    public static func render(_ data: ChartData) -> [String] {
        let step = columnSeconds(data)
        let span = data.range.upperBound.timeIntervalSince(data.range.lowerBound)
        let columns = max(1, Int((span / step).rounded(.up)))
        func column(_ date: Date) -> Int { min(columns - 1, max(0, Int(date.timeIntervalSince(data.range.lowerBound) / step))) }

        // Heart rate: the time-weighted average of the buckets in each column.
        var sums = [Double](repeating: 0, count: columns), weights = [Double](repeating: 0, count: columns)
        for bucket in data.heartRate {
            let index = column(bucket.start)
            let weight = max(1, bucket.end.timeIntervalSince(bucket.start))
            sums[index] += bucket.average * weight
            weights[index] += weight
        }
        let low = 40.0, high = 180.0
        let heart = String((0..<columns).map { index -> Character in
            guard weights[index] > 0 else { return " " }
            return level(sums[index] / weights[index], low, high)
        })
        let minimum = data.heartRate.map(\.minimum).min(), maximum = data.heartRate.map(\.maximum).max()

        // Steps: each bucket's value spread over the columns it covers, by time.
        var steps = [Double](repeating: 0, count: columns)
        for bucket in data.steps where bucket.value > 0 {
            let length = bucket.end.timeIntervalSince(bucket.start)
            guard length > 0 else { steps[column(bucket.start)] += bucket.value; continue }
            var time = bucket.start
            while time < bucket.end {
                let index = column(time)
                let columnEnd = data.range.lowerBound.addingTimeInterval(Double(index + 1) * step)
                let until = min(bucket.end, columnEnd)
                steps[index] += bucket.value * until.timeIntervalSince(time) / length
                if until <= time { break }
                time = until
            }
        }
        let most = steps.max() ?? 0
        let stepsLine = String(steps.map { $0 <= 0 ? " " : level($0, 0, most) })
        let total = data.steps.reduce(0) { $0 + $1.value }

        // Sleep: the value covering most of each column.
        var sleepCover = [[Double]](repeating: [0, 0, 0], count: columns)  // asleep, in bed, awake
        for stretch in data.sleep {
            var time = stretch.start
            while time < stretch.end {
                let index = column(time)
                let columnEnd = data.range.lowerBound.addingTimeInterval(Double(index + 1) * step)
                let until = min(stretch.end, columnEnd)
                let slot = stretch.value.isAsleep ? 0 : stretch.value == .inBed ? 1 : 2
                sleepCover[index][slot] += until.timeIntervalSince(time)
                if until <= time { break }
                time = until
            }
        }
        let sleepLine = String(sleepCover.map { cover -> Character in
            guard let best = cover.indices.max(by: { cover[$0] < cover[$1] }), cover[best] > 0 else { return " " }
            return ["▓", "░", "▒"][best]
        })

        // Axis: labels at their tick's column.
        var axis = [Character](repeating: " ", count: columns + 6)
        for tick in ChartAxis.ticks(for: data.range, zone: data.zone, multiDay: data.isMultiDay) where tick.labelled {
            let start = column(tick.time)
            for (offset, character) in tick.label.enumerated() where start + offset < axis.count { axis[start + offset] = character }
        }
        while axis.last == " " { axis.removeLast() }
        func whole(_ value: Double) -> String { String(Int64(value.rounded())) }
        return [
            data.title,
            "heart rate  " + (minimum.map { "\(whole($0))–\(whole(maximum ?? $0)) /min" } ?? "no readings")
                + " (column: average; ▁…█ from 40 to 180)",
            heart,
            "steps       \(whole(total)) (column: steps in it\(most > 0 ? "; █ = \(whole(most))" : ""))",
            stepsLine,
            "sleep       ▓ asleep  ░ in bed  ▒ awake",
            sleepLine,
            String(axis),
        ]
    }

    static func level(_ value: Double, _ low: Double, _ high: Double) -> Character {
        guard high > low else { return blocks[blocks.count - 1] }
        let fraction = min(1, max(0, (value - low) / (high - low)))
        return blocks[min(blocks.count - 1, Int(fraction * Double(blocks.count - 1) + 0.5))]
    }
}
