import FoundationEssentials

/// The window a night is looked for in: the night *of* a date runs from noon that day to noon
/// the next, local time in the given zone (so 23 or 25 hours across a DST change). A night is
/// named by the evening it starts, as people say "Monday night"; an afternoon nap belongs to the
/// night of the day before.
public enum SleepNight {
    public static func window(year: Int, month: Int, day: Int, in zone: TimeZone) -> Range<Date>? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        guard let start = calendar.date(from: DateComponents(year: year, month: month, day: day, hour: 12)),
              calendar.component(.day, from: start) == day,
              let end = calendar.date(byAdding: .day, value: 1, to: start) else { return nil }
        return start..<end
    }

    /// The years a night may be named in: those a stored sample may fall in (1900–2099), as for
    /// a day of the dashboard or `health chart`; a night of 9999-12-31 is a mistake, not a query.
    public static let years = 1900...2099

    /// The window of the night a date `YYYY-MM-DD` names; nil when the text is not such a date
    /// or its year is outside ``years``.
    public static func window(named text: String, in zone: TimeZone) -> Range<Date>? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
              (1...12).contains(month), (1...31).contains(day), years.contains(year) else { return nil }
        return window(year: year, month: month, day: day, in: zone)
    }

    /// The name (`YYYY-MM-DD`) of the night whose window contains `date`.
    public static func name(containing date: Date, in zone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let shifted = calendar.component(.hour, from: date) < 12 ? calendar.date(byAdding: .day, value: -1, to: date) ?? date : date
        let parts = calendar.dateComponents([.year, .month, .day], from: shifted)
        func pad(_ value: Int?, _ width: Int) -> String {
            let text = String(value ?? 0)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(parts.year, 4))-\(pad(parts.month, 2))-\(pad(parts.day, 2))"
    }
}
