import Foundation
import HealthAnalysis
import HealthModel
import HealthStore

/// The numbers of one dashboard view, read as the app `bandkit.dashboard` through the store's
/// per-app authorization: each figure is the same statistic `health stats`, `health sleep` and
/// `health workouts list` compute, or `notAllowed` when the dashboard may not read its type
/// (never an empty value that looks like "nothing happened").
struct DashboardSummary {
    static let app = AppIdentity(id: "bandkit.dashboard", version: "1")

    enum Figure: Equatable {
        case value(Double?)
        case notAllowed
    }

    enum View: String { case day, week, month }

    var view: View
    var date: String
    var range: Range<Date>
    var steps: Figure
    var distance: Figure
    var energy: Figure
    var heartAverage: Figure
    var heartMinimum: Figure
    var heartMaximum: Figure
    /// Sleep over the nights that end inside the range (a day: last night).
    var sleepAllowed: Bool
    var asleep: Double
    var inBed: Double
    var awakenings: Int
    var workoutsAllowed: Bool
    var workouts: [WorkoutStatistics]

    /// `view` starting on `date` (YYYY-MM-DD; a month view starts on the 1st of its month).
    static func range(view: View, date: String, zone: TimeZone) -> Range<Date>? {
        switch view {
        case .day: return ChartRange.days(startingOn: date, count: 1, in: zone)
        case .week: return ChartRange.days(startingOn: date, count: 7, in: zone)
        case .month:
            guard let day = ChartRange.days(startingOn: date, count: 1, in: zone) else { return nil }
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            let parts = calendar.dateComponents([.year, .month], from: day.lowerBound)
            guard let start = calendar.date(from: parts), let end = calendar.date(byAdding: .month, value: 1, to: start) else { return nil }
            return start..<end
        }
    }

    static func allowed(_ store: HealthStore, _ type: SampleType) throws -> Bool {
        try store.authorization(app: app.id, type: type.identifier).read == .granted
    }

    init(store: HealthStore, view: View, date: String, range: Range<Date>, zone: TimeZone) throws {
        self.view = view
        self.date = date
        self.range = range
        func statistic(_ type: QuantityType, _ option: StatisticsOptions) throws -> Figure {
            guard try Self.allowed(store, .quantity(type)) else { return .notAllowed }
            let values = try store.statistics(type: type, range: range, options: option, timeZone: zone, as: Self.app).first?.values
            return .value(values?.value(for: option))
        }
        steps = try statistic(.stepCount, .sum)
        distance = try statistic(.distanceWalkingRunning, .sum)
        energy = try statistic(.activeEnergyBurned, .sum)
        heartAverage = try statistic(.heartRate, .average)
        heartMinimum = try statistic(.heartRate, .minimum)
        heartMaximum = try statistic(.heartRate, .maximum)
        sleepAllowed = try Self.allowed(store, .category(.sleepAnalysis))
        // The nights that end on the range's days: the night of the day before each day.
        var asleep = 0.0, inBed = 0.0, awakenings = 0
        if sleepAllowed {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            var windows: [(night: String, window: Range<Date>)] = []
            var day = range.lowerBound
            while day < range.upperBound {
                guard let previous = calendar.date(byAdding: .day, value: -1, to: day),
                      let next = calendar.date(byAdding: .day, value: 1, to: day) else { break }
                let parts = calendar.dateComponents([.year, .month, .day], from: previous)
                let name = String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
                if let window = SleepNight.window(named: name, in: zone) { windows.append((name, window)) }
                day = next
            }
            // One query for all the nights (a month view made 30 before).
            for report in try NightReport.nights(store: store, windows, as: Self.app) {
                asleep += report.summary.asleep
                inBed += report.summary.inBed
                awakenings += report.summary.awakenings
            }
        }
        self.asleep = asleep
        self.inBed = inBed
        self.awakenings = awakenings
        workoutsAllowed = try Self.allowed(store, .workout)
        workouts = workoutsAllowed ? try store.workouts(in: range, as: Self.app).map { try store.statistics(of: $0, as: Self.app) } : []
    }
}
