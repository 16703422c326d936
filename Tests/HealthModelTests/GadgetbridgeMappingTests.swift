import FoundationEssentials
import HealthModel
import Testing

/// The pure side of the Gadgetbridge import: sleep kinds per family, row checks, sources, workouts.
@Suite struct GadgetbridgeMappingTests {
    let device = GadgetbridgeDevice(rowID: 1, name: "Amazfit Bip", manufacturer: "Huami", identifier: "F1:22:33:44:AB:CD", type: 12)

    @Test func eachFamilyReadsOnlyItsDocumentedSleepKinds() {
        var huami = GadgetbridgeSleepMeaning.of(table: "MI_BAND_ACTIVITY_SAMPLE", deviceType: 12).tracker()
        // 0 ("no change") and 10 ("ignore") carry the minute before; high bits are flags.
        #expect([0x79, 0, 10, 11, 0, 12, 0, 1].map { huami.stage(rawKind: $0) } == [3, 3, 3, 4, 4, nil, nil, nil])
        var miBand1 = GadgetbridgeSleepMeaning.of(table: "MI_BAND_ACTIVITY_SAMPLE", deviceType: 10).tracker()
        #expect([4, 5, 9, 11, 0].map { miBand1.stage(rawKind: $0) } == [3, 4, nil, nil, nil])
        var pineTime = GadgetbridgeSleepMeaning.of(table: "PINE_TIME_ACTIVITY_SAMPLE", deviceType: nil).tracker()
        #expect([2, 4, 0x0100_0000, 0x0200_0000, 1, 8].map { pineTime.stage(rawKind: $0) } == [3, 4, 5, 2, nil, nil])
        var bangle = GadgetbridgeSleepMeaning.of(table: "BANGLE_JSACTIVITY_SAMPLE", deviceType: nil).tracker()
        #expect([2, 4, 9, 11].map { bangle.stage(rawKind: $0) } == [nil, nil, nil, nil])
    }

    @Test func rowsNoBandMeasuredAreNamed() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        func problem(_ timestamp: Int64, steps: Int64 = 10, heartRate: Int64 = 70) -> GadgetbridgeMinute.Problem? {
            GadgetbridgeMinute(timestamp: timestamp, steps: steps, heartRate: heartRate, rawKind: 1).problem(now: now)
        }
        #expect(problem(1_717_200_000) == nil)
        #expect(problem(1_717_200_000, heartRate: 255) == nil)
        #expect(problem(1_717_200_000, heartRate: 0) == nil)
        #expect(problem(1_717_200_000_000) == .millisecondTimestamp)
        #expect(problem(1_800_100_000) == .futureTimestamp)
        #expect(problem(86_400) == .timestampBefore2000)
        #expect(problem(1_717_200_000, steps: -1) == .negativeSteps)
        #expect(problem(1_717_200_000, steps: 1001) == .implausibleSteps)
        #expect(problem(1_717_200_000, heartRate: 19) == .implausibleHeartRate)
        #expect(problem(1_717_200_000, heartRate: 251) == .implausibleHeartRate)
    }

    @Test func sleepRunsMergeConsecutiveMinutesAndBreakAtGapsAndStageChanges() {
        var samples = GadgetbridgeMinuteSamples(device: device, sleep: .huami)
        var made: [CategorySample] = []
        let collect: (GadgetbridgeMinuteSamples.Made) -> Void = { if case .category(let sample) = $0 { made.append(sample) } }
        let t0: Int64 = 1_717_200_000
        for (offset, kind) in [(0, 9), (60, 0), (120, 11), (180, 11), (600, 11), (660, 1)] as [(Int64, Int64)] {
            samples.add(GadgetbridgeMinute(timestamp: t0 + offset, steps: 0, heartRate: 0, rawKind: kind), into: collect)
        }
        samples.finish(into: collect)
        #expect(made.map { [$0.value, Int($0.start.timeIntervalSince1970 - Double(t0)), Int($0.end.timeIntervalSince1970 - Double(t0))] }
                == [[3, 0, 120], [4, 120, 240], [4, 600, 660]])
        #expect(made[0].syncIdentifier == "gb-f1:22:33:44:ab:cd-sleep-\(t0)")
        #expect(made[0].syncVersion == t0 + 120)
    }

    @Test func sourcesAreStablePerDeviceAndWorkoutsKeepTheirIdAcrossImports() {
        #expect(device.source.id == "gadgetbridge.amazfit-bip-abcd")
        var aliased = device
        aliased.alias = "  Anna's Bip!  "
        #expect(aliased.source.id == "gadgetbridge.anna-s-bip-abcd")
        #expect(aliased.matches("  anna's bip!  "))
        #expect(aliased.matches("f1:22:33:44:ab:cd"))
        let entry = GadgetbridgeWorkout(startMilliseconds: 1_717_200_000_000, endMilliseconds: 1_717_201_800_000, activityKind: 16, name: "Run")
        #expect(entry.problem(now: Date(timeIntervalSince1970: 1_800_000_000)) == nil)
        #expect(entry.workout(device: device).id == entry.workout(device: device).id)
        #expect(entry.workout(device: device).activity == .running)
        #expect(GadgetbridgeWorkout(startMilliseconds: 1_717_200_000, endMilliseconds: 1_717_201_800, activityKind: 16, name: nil)
            .problem(now: Date(timeIntervalSince1970: 1_800_000_000)) == .secondTimestamp)
    }
}
