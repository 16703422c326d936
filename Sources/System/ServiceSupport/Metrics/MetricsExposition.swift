extension MetricsRegistry {
    /// Every family in Prometheus' text format 0.0.4: `# HELP` and `# TYPE` lines, then one line
    /// per series (histograms: cumulative `_bucket` lines with `le`, ending with `+Inf`, then
    /// `_sum` and `_count`), families in registration order and series in the order they were made.
    ///
    /// Escaping as the format says: in help text `\` and newline (`\\`, `\n`); in label values
    /// `\`, `"` and newline (`\\`, `\"`, `\n`). Values are integers when whole (below 2⁵³), else
    /// the shortest decimal that reads back the same; `+Inf`, `-Inf` and `NaN` as spelled there.
    public func exposition() -> [UInt8] {
        var out = ""
        out.reserveCapacity(256 * families.count)
        for family in families {
            out += "# HELP \(family.name) \(Self.escapedHelp(family.help))\n"
            out += "# TYPE \(family.name) \(family.kind.rawValue)\n"
            for index in family.members where cells[index].live {
                let cell = cells[index]
                let labels = zip(family.labelNames, labelValues[index]).map { "\($0)=\"\(Self.escapedLabelValue($1))\"" }
                guard family.kind == .histogram else {
                    out += family.name + Self.braced(labels) + " " + Self.number(cell.value) + "\n"
                    continue
                }
                var cumulative: UInt64 = 0
                for (bucket, slot) in bucketRange(index).enumerated() {
                    cumulative += bucketCounts[slot]
                    let bound = bucket < family.buckets.count ? Self.number(family.buckets[bucket]) : "+Inf"
                    out += family.name + "_bucket" + Self.braced(labels + ["le=\"\(bound)\""]) + " \(cumulative)\n"
                }
                out += family.name + "_sum" + Self.braced(labels) + " " + Self.number(cell.value) + "\n"
                out += family.name + "_count" + Self.braced(labels) + " \(cell.count)\n"
            }
        }
        return Array(out.utf8)
    }

    private static func braced(_ labels: [String]) -> String {
        labels.isEmpty ? "" : "{" + labels.joined(separator: ",") + "}"
    }

    /// A sample value or bucket bound as the format writes it.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 9_007_199_254_740_992 { return String(Int64(value)) }
        return value.description
    }

    /// `\` → `\\`, newline → `\n`.
    static func escapedHelp(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x5C || $0 == 0x0A }) else { return text }
        var out = ""
        for character in text.unicodeScalars {
            switch character {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    /// `\` → `\\`, `"` → `\"`, newline → `\n`.
    static func escapedLabelValue(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x5C || $0 == 0x0A || $0 == 0x22 }) else { return text }
        var out = ""
        for character in text.unicodeScalars {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }
}
