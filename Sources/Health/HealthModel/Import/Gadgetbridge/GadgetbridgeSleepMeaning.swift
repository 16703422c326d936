/// How a family of Gadgetbridge activity-sample tables spells sleep in RAW_KIND. Only families
/// whose meaning Gadgetbridge's own sources document are read; the rest give steps and heart
/// rate only, never a guessed night.
public enum GadgetbridgeSleepMeaning: Sendable, Hashable {
    /// Mi Band 1 (`MI_BAND_ACTIVITY_SAMPLE`, device type 10): `MiBandSampleProvider` — 4 light
    /// sleep, 5 deep sleep.
    case miBand1
    /// Mi Band 2 and later Huami devices (`MI_BAND_ACTIVITY_SAMPLE`): `HuamiConst` with
    /// `MiBand2SampleProvider`'s post-processing — the low four bits; 9 light, 11 deep sleep,
    /// 0 ("no change") and 10 ("ignore") carry the previous minute's kind forward.
    case huami
    /// Kinds that are Gadgetbridge's `ActivityKind` codes (`PineTimeActivitySampleProvider`
    /// normalises with `ActivityKind.fromCode`): 2 light, 4 deep, 0x01000000 REM,
    /// 0x02000000 awake during sleep.
    case activityKind
    /// No documented meaning: RAW_KIND is not read.
    case none

    /// The table's family, from its name and the Gadgetbridge device type of its rows
    /// (`DEVICE.TYPE`, Gadgetbridge's `DeviceType` key: 10 is the first Mi Band).
    public static func of(table: String, deviceType: Int64?) -> GadgetbridgeSleepMeaning {
        switch table.uppercased() {
        case "MI_BAND_ACTIVITY_SAMPLE": return deviceType == 10 ? .miBand1 : .huami
        case "PINE_TIME_ACTIVITY_SAMPLE": return .activityKind
        default: return .none
        }
    }

    /// The tracker of one device's minutes, in time order.
    public func tracker() -> GadgetbridgeSleepTracker { GadgetbridgeSleepTracker(meaning: self) }
}

/// A minute's sleep stage from its RAW_KIND, fed the minutes of one device in time order (the
/// Huami kinds "no change" and "ignore" mean "as the minute before").
public struct GadgetbridgeSleepTracker: Sendable {
    public let meaning: GadgetbridgeSleepMeaning
    private var previous: Int64?

    init(meaning: GadgetbridgeSleepMeaning) { self.meaning = meaning }

    /// The HealthKit sleep-analysis value (`CategoryType.sleepAnalysis`: 3 core/light, 4 deep,
    /// 5 REM, 2 awake) of a minute of kind `rawKind`, or nil when it is not asleep.
    public mutating func stage(rawKind: Int64?) -> Int? {
        guard let rawKind else { return nil }
        switch meaning {
        case .none: return nil
        case .miBand1:
            switch rawKind {
            case 4: return 3
            case 5: return 4
            default: return nil
            }
        case .huami:
            var kind = rawKind == -1 ? rawKind : rawKind & 0xF
            if kind == 0 || kind == 10 { kind = previous ?? kind } else { previous = kind }
            switch kind {
            case 9: return 3
            case 11: return 4
            default: return nil
            }
        case .activityKind:
            switch rawKind {
            case 2: return 3
            case 4: return 4
            case 0x0100_0000: return 5
            case 0x0200_0000: return 2
            default: return nil
            }
        }
    }
}
