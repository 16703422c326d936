import AppleHealth
import Foundation
import HealthModel
import Testing

/// Every element kind of export.xml, from hand-written fragments.
@Suite struct ParserElementTests {
    @Test func aQuantityRecordKeepsEveryField() throws {
        let xml = Fragment.document(Fragment.record("HKQuantityTypeIdentifierHeartRate", value: "61", unit: "count/min",
                                                    source: "Anna’s Watch", device: Fragment.watchDevice, children: """
              <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="1"/>
              <MetadataEntry key="HKMetadataKeySyncIdentifier" value="hr-1"/>
              <MetadataEntry key="HKMetadataKeySyncVersion" value="3"/>
              <MetadataEntry key="HKWasUserEntered" value="1"/>
              <MetadataEntry key="HKTimeZone" value="America/Los_Angeles"/>

            """))
        let parsed = try Parsed(xml)
        let sample = try #require(parsed.quantities.first)
        #expect(sample.type == .heartRate)
        #expect(sample.quantity == Quantity(61, .countPerMinute))
        #expect(sample.start == Date(timeIntervalSince1970: 1_717_257_600))  // 2024-06-01T16:00:00Z
        #expect(sample.end.timeIntervalSince(sample.start) == 60)
        #expect(sample.source == AppIdentity(id: "Anna’s Watch", version: "10.5"))
        #expect(sample.device == DeviceInfo(name: "Apple Watch", manufacturer: "Apple Inc.", model: "Watch",
                                            hardwareIdentifier: "Watch6,1", firmwareVersion: "9.0"))
        #expect(sample.syncIdentifier == "hr-1")
        #expect(sample.syncVersion == 3)
        #expect(sample.userEntered)
        #expect(sample.timeZone?.identifier == "America/Los_Angeles")
        #expect(sample.metadata == ["HKMetadataKeyHeartRateMotionContext": "1"])
    }

    @Test func withoutATimeZoneKeyTheDatesOffsetIsTheZone() throws {
        let parsed = try Parsed(Fragment.document(Fragment.record("HKQuantityTypeIdentifierStepCount", value: "5")))
        #expect(parsed.quantities.first?.timeZone?.secondsFromGMT() == -7 * 3600)
    }

    @Test func sleepAnalysisReadsEveryValueIncludingTheOldAsleep() throws {
        let names = ["InBed", "AsleepUnspecified", "Awake", "AsleepCore", "AsleepDeep", "AsleepREM", "Asleep"]
        let body = names.enumerated().map { index, name in
            Fragment.record("HKCategoryTypeIdentifierSleepAnalysis", value: "HKCategoryValueSleepAnalysis\(name)", unit: nil,
                            start: "2024-06-01 0\(index):00:00 -0700", end: "2024-06-01 0\(index):30:00 -0700")
        }.joined()
        let parsed = try Parsed(Fragment.document(body))
        #expect(parsed.categories.map(\.value) == [0, 1, 2, 3, 4, 5, 1])
        #expect(parsed.categories.allSatisfy { $0.type == .sleepAnalysis })
    }

    @Test func aNightInBedLongerThanAnHourIsAccepted() throws {
        let parsed = try Parsed(Fragment.document(Fragment.record(
            "HKCategoryTypeIdentifierSleepAnalysis", value: "HKCategoryValueSleepAnalysisInBed", unit: nil,
            start: "2024-05-31 22:30:00 -0700", end: "2024-06-01 07:10:00 -0700")))
        #expect(parsed.categories.count == 1)
    }

    @Test func standHours() throws {
        let body = Fragment.record("HKCategoryTypeIdentifierAppleStandHour", value: "HKCategoryValueAppleStandHourIdle", unit: nil,
                                   start: "2024-06-01 09:00:00 -0700", end: "2024-06-01 10:00:00 -0700")
            + Fragment.record("HKCategoryTypeIdentifierAppleStandHour", value: "HKCategoryValueAppleStandHourStood", unit: nil,
                              start: "2024-06-01 10:00:00 -0700", end: "2024-06-01 11:00:00 -0700")
        #expect(try Parsed(Fragment.document(body)).categories.map(\.value) == [1, 0])
    }

    @Test func meBecomesCharacteristicsAndUnsetOnesAreLeftOut() throws {
        let xml = Fragment.document("""
             <Me HKCharacteristicTypeIdentifierDateOfBirth="1980-02-29" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexMale" HKCharacteristicTypeIdentifierBloodType="HKBloodTypeNotSet" HKCharacteristicTypeIdentifierFitzpatrickSkinType="HKFitzpatrickSkinTypeIII"/>
            """)
        let parsed = try Parsed(xml)
        #expect(parsed.characteristics == [CharacteristicSetting(.dateOfBirth, "1980-02-29"), CharacteristicSetting(.biologicalSex, "male")])
        #expect(parsed.summary.skipped["Me HKCharacteristicTypeIdentifierFitzpatrickSkinType"] == 1)
    }

    /// iOS 16+ nests `WorkoutActivity` elements (one per activity of a multisport workout) with
    /// their own statistics, events and metadata inside `Workout`. They are not read: each is
    /// counted, and nothing inside one leaks into the workout's totals, events or metadata.
    @Test func workoutActivitiesAreSkippedAndCountedWithoutLeakingIntoTheWorkout() throws {
        let activity = { (start: String, end: String, energy: String) in """
              <WorkoutActivity uuid="6C3B1C5E-0000-4000-8000-00000000000\(energy.count)" startDate="\(start)" endDate="\(end)" duration="20" durationUnit="min">
               <MetadataEntry key="HKIndoorWorkout" value="1"/>
               <WorkoutEvent type="HKWorkoutEventTypeLap" date="\(start)"/>
               <WorkoutStatistics type="HKQuantityTypeIdentifierActiveEnergyBurned" startDate="\(start)" endDate="\(end)" sum="\(energy)" unit="kcal"/>
               <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceSwimming" startDate="\(start)" endDate="\(end)" sum="900" unit="m"/>
              </WorkoutActivity>
            """ }
        let xml = Fragment.document("""
             <Workout workoutActivityType="HKWorkoutActivityTypeSwimBikeRun" duration="40" durationUnit="min" sourceName="Watch" sourceVersion="17.0" startDate="2024-06-01 07:00:00 -0700" endDate="2024-06-01 07:40:00 -0700">
              <MetadataEntry key="HKIndoorWorkout" value="0"/>
            \(activity("2024-06-01 07:00:00 -0700", "2024-06-01 07:20:00 -0700", "150"))
            \(activity("2024-06-01 07:20:00 -0700", "2024-06-01 07:40:00 -0700", "99"))
              <WorkoutEvent type="HKWorkoutEventTypePause" date="2024-06-01 07:10:00 -0700"/>
              <WorkoutStatistics type="HKQuantityTypeIdentifierActiveEnergyBurned" startDate="2024-06-01 07:00:00 -0700" endDate="2024-06-01 07:40:00 -0700" sum="400" unit="kcal"/>
             </Workout>
            """)
        let parsed = try Parsed(xml)
        #expect(parsed.workouts.count == 1)
        let workout = try #require(parsed.workouts.first)
        #expect(workout.start == ISO8601DateFormatter().date(from: "2024-06-01T14:00:00Z"))
        #expect(try workout.totalEnergyBurned?.value(in: .kilocalorie) == 400)
        #expect(workout.totalDistance == nil)
        #expect(workout.metadata["HKIndoorWorkout"] == "0")
        #expect(workout.metadata["HKWorkoutEvents"] == "HKWorkoutEventTypePause\t2024-06-01 07:10:00 -0700\t\t")
        #expect(parsed.summary.skipped["WorkoutActivity"] == 2)
        #expect(parsed.summary.skipped["WorkoutStatistics HKQuantityTypeIdentifierDistanceSwimming"] == nil)
    }

    @Test func aWorkoutTakesItsTotalsFromStatisticsAndKeepsEvents() throws {
        let xml = Fragment.document("""
             <Workout workoutActivityType="HKWorkoutActivityTypeCycling" duration="45" durationUnit="min" totalDistance="1" totalDistanceUnit="km" sourceName="Watch" sourceVersion="10.5" device="\(Fragment.watchDevice)" startDate="2024-06-01 07:00:00 -0700" endDate="2024-06-01 07:45:00 -0700">
              <MetadataEntry key="HKIndoorWorkout" value="0"/>
              <WorkoutEvent type="HKWorkoutEventTypePause" date="2024-06-01 07:10:00 -0700"/>
              <WorkoutEvent type="HKWorkoutEventTypeSegment" date="2024-06-01 07:00:00 -0700" duration="10" durationUnit="min"/>
              <WorkoutStatistics type="HKQuantityTypeIdentifierActiveEnergyBurned" startDate="2024-06-01 07:00:00 -0700" endDate="2024-06-01 07:45:00 -0700" sum="400" unit="Cal"/>
              <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceCycling" startDate="2024-06-01 07:00:00 -0700" endDate="2024-06-01 07:45:00 -0700" sum="15.5" unit="mi"/>
              <WorkoutStatistics type="HKQuantityTypeIdentifierHeartRate" startDate="2024-06-01 07:00:00 -0700" endDate="2024-06-01 07:45:00 -0700" average="140" unit="count/min"/>
              <WorkoutRoute sourceName="Watch"><FileReference path="/workout-routes/route_2024-06-01.gpx"/></WorkoutRoute>
             </Workout>
            """)
        let parsed = try Parsed(xml)
        let workout = try #require(parsed.workouts.first)
        #expect(workout.activity == .cycling)
        #expect(workout.duration == 45 * 60)
        #expect(try workout.totalEnergyBurned?.value(in: .kilocalorie) == 400)
        #expect(try workout.totalDistance?.value(in: .mile) == 15.5)
        #expect(workout.source?.id == "Watch")
        #expect(workout.device?.model == "Watch")
        #expect(workout.metadata["HKIndoorWorkout"] == "0")
        #expect(workout.metadata["HKWorkoutEvents"] == "HKWorkoutEventTypePause\t2024-06-01 07:10:00 -0700\t\t\n"
                + "HKWorkoutEventTypeSegment\t2024-06-01 07:00:00 -0700\t10\tmin")
        #expect(parsed.summary.skipped["WorkoutRoute"] == 1)
        #expect(parsed.summary.skipped["WorkoutStatistics HKQuantityTypeIdentifierHeartRate"] == 1)
    }

    @Test func aWorkoutWithoutStatisticsUsesTheLegacyAttributesOrNone() throws {
        let xml = Fragment.document("""
             <Workout workoutActivityType="HKWorkoutActivityTypeWalking" duration="20" durationUnit="min" totalDistance="1.2" totalDistanceUnit="km" totalEnergyBurned="80" totalEnergyBurnedUnit="kcal" sourceName="Phone" startDate="2019-06-01 07:00:00 +0200" endDate="2019-06-01 07:20:00 +0200"/>
             <Workout workoutActivityType="HKWorkoutActivityTypeYoga" sourceName="Phone" startDate="2019-06-02 07:00:00 +0200" endDate="2019-06-02 07:20:00 +0200"/>
            """)
        let parsed = try Parsed(xml)
        #expect(parsed.workouts.count == 2)
        #expect(try parsed.workouts[0].totalDistance?.value(in: .meter) == 1200)
        #expect(try parsed.workouts[0].totalEnergyBurned?.value(in: .kilocalorie) == 80)
        #expect(parsed.workouts[1].activity == WorkoutActivityType(rawValue: "yoga"))
        #expect(parsed.workouts[1].totalDistance == nil && parsed.workouts[1].totalEnergyBurned == nil)
    }

    @Test func aCorrelationsKnownRecordsAreReadAndTheRestSkippedAndCounted() throws {
        let xml = Fragment.document("""
             <Correlation type="HKCorrelationTypeIdentifierBloodPressure" sourceName="Omron" startDate="2024-06-01 08:00:00 -0700" endDate="2024-06-01 08:00:00 -0700">
              <MetadataEntry key="HKWasUserEntered" value="1"/>
            \(Fragment.record("HKQuantityTypeIdentifierBloodPressureSystolic", value: "120", unit: "mmHg", source: "Omron", start: "2024-06-01 08:00:00 -0700", end: "2024-06-01 08:00:00 -0700"))\
            \(Fragment.record("HKQuantityTypeIdentifierBloodPressureDiastolic", value: "80", unit: "mmHg", source: "Omron", start: "2024-06-01 08:00:00 -0700", end: "2024-06-01 08:00:00 -0700"))\
            \(Fragment.record("HKQuantityTypeIdentifierHeartRate", value: "61", unit: "count/min", source: "Omron", start: "2024-06-01 08:00:00 -0700", end: "2024-06-01 08:00:00 -0700"))\
             </Correlation>
            \(Fragment.record("HKQuantityTypeIdentifierHeartRate", value: "61", unit: "count/min", source: "Omron", start: "2024-06-01 08:00:00 -0700", end: "2024-06-01 08:00:00 -0700"))
            """)
        let parsed = try Parsed(xml)
        #expect(parsed.quantities.count == 2)
        // The same record inside and outside the correlation: one sync identifier, so stored once.
        #expect(parsed.quantities[0].syncIdentifier == parsed.quantities[1].syncIdentifier)
        #expect(parsed.summary.skipped == ["Correlation HKCorrelationTypeIdentifierBloodPressure": 1,
                                           "HKQuantityTypeIdentifierBloodPressureSystolic": 1,
                                           "HKQuantityTypeIdentifierBloodPressureDiastolic": 1])
    }

    @Test func unknownTypesAndOtherElementsAreSkippedAndCounted() throws {
        let xml = Fragment.document(
            Fragment.record("HKQuantityTypeIdentifierVO2Max", value: "40", unit: "mL/min·kg")
            + Fragment.record("HKQuantityTypeIdentifierVO2Max", value: "41", unit: "mL/min·kg")
            + Fragment.record("HKDataTypeSleepDurationGoal", value: "8", unit: "hr")
            + " <ActivitySummary dateComponents=\"2024-06-01\" activeEnergyBurned=\"500\"/>\n"
            + " <ClinicalRecord type=\"HKClinicalTypeIdentifierLabResultRecord\"/>\n")
        let parsed = try Parsed(xml)
        #expect(parsed.items.isEmpty)
        #expect(parsed.summary.skipped == ["HKQuantityTypeIdentifierVO2Max": 2, "HKDataTypeSleepDurationGoal": 1,
                                           "ActivitySummary": 1, "ClinicalRecord": 1])
    }

    @Test func everyStoreQuantityTypeIsMappedFromItsHealthKitIdentifier() throws {
        for type in QuantityType.all {
            let identifier = "HKQuantityTypeIdentifier" + type.healthKitName
            #expect(AppleTypes.sampleType(identifier: identifier) == .quantity(type))
        }
    }
}
