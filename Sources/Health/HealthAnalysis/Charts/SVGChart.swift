import FoundationEssentials

/// A day or week chart as a standalone SVG 1.1 document: heart rate (average line in a min–max
/// band), steps per bucket as bars, the sleep hypnogram, workouts shaded across all three, and the
/// local-time axis of ``ChartAxis``. Everything is inline (no fonts, scripts or links), so the
/// file shows the same anywhere; every plotted value is also written as a `data-*` attribute
/// so a test (or a curious person) can read the numbers back.
public enum SVGChart {
    public static let width = 1200.0
    static let left = 60.0, right = 20.0
    static let heartTop = 40.0, heartHeight = 220.0
    static let stepsTop = 290.0, stepsHeight = 140.0
    static let sleepTop = 460.0, sleepLane = 22.0
    static let axisTop = 540.0
    public static let height = 580.0

    public static func render(_ data: ChartData) -> String {
        let plotWidth = width - left - right
        let span = data.range.upperBound.timeIntervalSince(data.range.lowerBound)
        func x(_ date: Date) -> Double {
            let offset = min(max(0, date.timeIntervalSince(data.range.lowerBound)), span)
            return left + offset / span * plotWidth
        }
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="\(n(width))" height="\(n(height))" viewBox="0 0 \(n(width)) \(n(height))" font-family="sans-serif" font-size="12">
            <title>\(escaped(data.title))</title>
            <rect x="0" y="0" width="\(n(width))" height="\(n(height))" fill="#ffffff"/>

            """
        // Workouts first: shading under everything else.
        for workout in data.workouts {
            let x0 = x(workout.start), x1 = x(workout.end)
            out += "<rect class=\"workout\" data-activity=\"\(escaped(workout.activity))\" data-start=\"\(unixSeconds(workout.start))\" data-end=\"\(unixSeconds(workout.end))\" x=\"\(n(x0))\" y=\"\(n(heartTop))\" width=\"\(n(max(1, x1 - x0)))\" height=\"\(n(sleepTop + 3 * sleepLane - heartTop))\" fill=\"#ffe6b3\"><title>\(escaped(workout.activity))</title></rect>\n"
        }
        // Grid and axis.
        for tick in ChartAxis.ticks(for: data.range, zone: data.zone, multiDay: data.isMultiDay) {
            let tx = x(tick.time)
            out += "<line class=\"tick\" data-time=\"\(unixSeconds(tick.time))\" x1=\"\(n(tx))\" y1=\"\(n(heartTop))\" x2=\"\(n(tx))\" y2=\"\(n(axisTop))\" stroke=\"\(tick.labelled ? "#cccccc" : "#eeeeee")\"/>\n"
            if tick.labelled {
                out += "<text class=\"tick-label\" x=\"\(n(tx))\" y=\"\(n(axisTop + 16))\" text-anchor=\"middle\">\(escaped(tick.label))</text>\n"
            }
        }
        // Heart rate.
        let rates = data.heartRate
        let low = min(40, rates.map(\.minimum).min() ?? 40)
        let high = max(160, rates.map(\.maximum).max() ?? 160)
        func y(_ bpm: Double) -> Double { heartTop + heartHeight - (bpm - low) / (high - low) * heartHeight }
        out += "<text x=\"\(n(left))\" y=\"\(n(heartTop - 10))\">heart rate (/min), \(n(low))–\(n(high))</text>\n"
        for run in contiguousRuns(rates) {
            var band = "M"
            for bucket in run { band += " \(n(x(bucket.start))),\(n(y(bucket.maximum))) \(n(x(bucket.end))),\(n(y(bucket.maximum)))" }
            for bucket in run.reversed() { band += " \(n(x(bucket.end))),\(n(y(bucket.minimum))) \(n(x(bucket.start))),\(n(y(bucket.minimum)))" }
            out += "<path class=\"hr-band\" d=\"\(band) Z\" fill=\"#f4b6b6\" stroke=\"none\"/>\n"
            let line = run.map { "\(n((x($0.start) + x($0.end)) / 2)),\(n(y($0.average)))" }.joined(separator: " ")
            out += "<polyline class=\"hr-average\" points=\"\(line)\" fill=\"none\" stroke=\"#c0392b\" stroke-width=\"1.5\"/>\n"
        }
        for bucket in rates {
            out += "<desc class=\"hr\" data-start=\"\(unixSeconds(bucket.start))\" data-avg=\"\(n(bucket.average))\" data-min=\"\(n(bucket.minimum))\" data-max=\"\(n(bucket.maximum))\"/>\n"
        }
        // Steps.
        let most = max(1, data.steps.map(\.value).max() ?? 1)
        let total = data.steps.reduce(0) { $0 + $1.value }
        out += "<text x=\"\(n(left))\" y=\"\(n(stepsTop - 10))\">steps per \(data.isMultiDay ? "day" : "hour"), total \(n(total.rounded()))</text>\n"
        for bucket in data.steps {
            let x0 = x(bucket.start), x1 = x(bucket.end)
            let h = bucket.value / most * stepsHeight
            out += "<rect class=\"steps\" data-start=\"\(unixSeconds(bucket.start))\" data-value=\"\(n(bucket.value))\" x=\"\(n(x0 + 1))\" y=\"\(n(stepsTop + stepsHeight - h))\" width=\"\(n(max(0.5, x1 - x0 - 2)))\" height=\"\(n(h))\" fill=\"#2e86c1\"/>\n"
        }
        // Sleep: awake on top, in bed in the middle, asleep at the bottom.
        out += "<text x=\"\(n(left))\" y=\"\(n(sleepTop - 6))\">sleep (awake · in bed · asleep)</text>\n"
        for stretch in data.sleep {
            let lane: Double, colour: String, name: String
            switch stretch.value {
            case .awake: (lane, colour, name) = (0, "#f5b041", "awake")
            case .inBed: (lane, colour, name) = (1, "#aed6f1", "inBed")
            default: (lane, colour, name) = (2, "#1f618d", "asleep")
            }
            let x0 = x(stretch.start), x1 = x(stretch.end)
            out += "<rect class=\"sleep\" data-value=\"\(name)\" data-start=\"\(unixSeconds(stretch.start))\" data-end=\"\(unixSeconds(stretch.end))\" x=\"\(n(x0))\" y=\"\(n(sleepTop + lane * sleepLane))\" width=\"\(n(max(0.5, x1 - x0)))\" height=\"\(n(sleepLane - 2))\" fill=\"\(colour)\"/>\n"
        }
        out += "</svg>\n"
        return out
    }

    /// Buckets whose ends touch, so a gap in the readings is a gap in the drawing.
    static func contiguousRuns(_ buckets: [ChartData.HeartRate]) -> [[ChartData.HeartRate]] {
        var runs: [[ChartData.HeartRate]] = []
        for bucket in buckets {
            if let last = runs.last?.last, last.end == bucket.start { runs[runs.count - 1].append(bucket) } else { runs.append([bucket]) }
        }
        return runs
    }

    /// A coordinate or value with at most two decimals, never `-0`; exponent notation only past 1e13.
    static func n(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        // Beyond exact integers (no plotted value of a person gets there): Swift's shortest form,
        // which SVG's number grammar accepts.
        guard abs(value) < 1e13 else { return value.description }
        let hundredths = (value * 100).rounded()
        if hundredths == 0 { return "0" }
        let whole = Int64(hundredths) / 100, fraction = abs(Int64(hundredths) % 100)
        let sign = hundredths < 0 && whole == 0 ? "-" : ""
        if fraction == 0 { return "\(sign)\(whole)" }
        return "\(sign)\(whole)." + (fraction % 10 == 0 ? "\(fraction / 10)" : (fraction < 10 ? "0\(fraction)" : "\(fraction)"))
    }

    static func unixSeconds(_ date: Date) -> String {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        return String(seconds)
    }

    /// XML text and attribute escaping; control characters (not allowed in XML 1.0) become U+FFFD.
    public static func escaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0xFFFE || scalar.value == 0xFFFF {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
