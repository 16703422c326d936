import Foundation
import HealthModel
import Testing

/// The one activity vocabulary: every HKWorkoutActivityType, in two spellings, and nothing else.
@Suite struct WorkoutActivityTypeTests {
    @Test func everyHealthKitCaseIsThereOnce() {
        #expect(WorkoutActivityType.all.count == 84)
        #expect(Set(WorkoutActivityType.all).count == WorkoutActivityType.all.count)
        for name in ["traditionalStrengthTraining", "highIntensityIntervalTraining", "mixedCardio", "coreTraining",
                     "functionalStrengthTraining", "stairClimbing", "underwaterDiving", "swimBikeRun", "other"] {
            #expect(WorkoutActivityType(name: name)?.rawValue == name)
        }
    }

    @Test func caseNameKebabCaseAndAppleIdentifierNameTheSameActivity() {
        for activity in WorkoutActivityType.all {
            #expect(WorkoutActivityType(name: activity.rawValue) == activity)
            #expect(WorkoutActivityType(name: activity.kebabName) == activity)
            #expect(WorkoutActivityType(appleIdentifier: activity.appleIdentifier) == activity)
        }
        #expect(WorkoutActivityType(name: "high-intensity-interval-training")?.rawValue == "highIntensityIntervalTraining")
        #expect(WorkoutActivityType.all.first { $0.rawValue == "traditionalStrengthTraining" }?.appleIdentifier
                == "HKWorkoutActivityTypeTraditionalStrengthTraining")
        // A row stored in kebab case before the vocabulary reads back as the case name.
        #expect(WorkoutActivityType(rawValue: "mixed-cardio").canonical.rawValue == "mixedCardio")
    }

    @Test(arguments: ["<script>", "Running", "runing", "", "traditional_strength_training", "TraditionalStrengthTraining",
                      "running\u{1B}[2J", "high-intensity-interval-Training"])
    func anythingElseIsRefused(_ name: String) {
        #expect(WorkoutActivityType(name: name) == nil)
    }

    @Test func appleIdentifiersNeedThePrefixAndACapital() {
        #expect(WorkoutActivityType(appleIdentifier: "HKWorkoutActivityTypeRunning") == .running)
        #expect(WorkoutActivityType(appleIdentifier: "HKWorkoutActivityType<script>") == nil)
        #expect(WorkoutActivityType(appleIdentifier: "HKWorkoutActivityTyperunning") == nil)
        #expect(WorkoutActivityType(appleIdentifier: "running") == nil)
        #expect(WorkoutActivityType(appleIdentifier: "HKWorkoutActivityType") == nil)
    }
}

/// The bound on statistics buckets: refused before any bucket is made.
@Suite struct BucketBoundTests {
    @Test func bucketBoundRefusesDecadesByMinuteAndKeepsAYear() {
        let utc = TimeZone(identifier: "UTC")!
        func range(_ from: String, _ to: String) -> Range<Date> {
            TimeParsing.instant(from, defaultZone: utc)!..<TimeParsing.instant(to, defaultZone: utc)!
        }
        #expect(BucketCalendar.tooManyBuckets(range: range("2024-01-01T00:00:00Z", "2025-01-01T00:00:00Z"), interval: .minute) == nil)
        #expect(BucketCalendar.tooManyBuckets(range: range("1900-01-01T00:00:00Z", "2099-12-31T00:00:00Z"), interval: .minute) != nil)
        #expect(BucketCalendar.tooManyBuckets(range: range("1900-01-01T00:00:00Z", "2099-12-31T00:00:00Z"), interval: .day) == nil)
        #expect(BucketCalendar.tooManyBuckets(range: range("1900-01-01T00:00:00Z", "2099-12-31T00:00:00Z"), interval: nil) == nil)
        // The bound is never below the buckets really made.
        for interval in BucketInterval.allCases {
            let year = range("2024-03-01T00:00:00Z", "2025-03-01T00:00:00Z")
            let made = BucketCalendar.borders(range: year, interval: interval, timeZone: TimeZone(identifier: "Europe/Berlin")!).count - 1
            #expect(BucketCalendar.bucketCountBound(range: year, interval: interval) >= made, "\(interval)")
        }
    }
}
