import BandProtocol

/// The band's own minute records as ground truth (`--truth FILE`): one JSON object per line.
///
/// ```json
/// {"minute":"2026-11-30T08:00:00Z","steps":112,"distance_m":85.1,"energy_kcal":4.3,"hr_avg":96,"hr_min":88,"hr_max":104,"worn":true,"seq":0,"utc_offset_min":60,"activity":"walking","session_start":true}
/// ```
///
/// `minute` is the record's UTC start (ISO 8601), distances and energies are the record's
/// decimetres and 0.1 kcal written as decimals (so the file is exact, not rounded twice),
/// heart-rate fields are `null` when the minute has none. `seq` (record sequence number) and
/// `utc_offset_min` are extra keys a checker may use to line the file up with a reader's sync.
/// `activity` is the record's session activity (`"walking"`, `"running"`, `null` for none, the
/// number for a value this version has no name for) and `session_start` its flag bit 4: the
/// band's truth about its walk and run sessions.
public enum TruthLine {
    public static func json(sequence: UInt32, record: MinuteRecord) -> String {
        let minute = CivilTime(unixSeconds: Int64(record.minuteStart)).iso8601UTC
        func tenths(_ value: UInt16) -> String { "\(value / 10).\(value % 10)" }
        func optional(_ value: UInt8?) -> String { value.map { String($0) } ?? "null" }
        let offset = record.utcOffset.seconds.map { String($0 / 60) } ?? "null"
        let activity: String
        switch record.activity {
        case .none: activity = "null"
        case .walking: activity = "\"walking\""
        case .running: activity = "\"running\""
        default: activity = String(record.activity.rawValue)
        }
        return "{\"minute\":\"\(minute)\",\"steps\":\(record.steps),\"distance_m\":\(tenths(record.distanceDecimetres))"
            + ",\"energy_kcal\":\(tenths(record.energyDecikilocalories)),\"hr_avg\":\(optional(record.heartRate?.average))"
            + ",\"hr_min\":\(optional(record.heartRate?.minimum)),\"hr_max\":\(optional(record.heartRate?.maximum))"
            + ",\"worn\":\(record.worn),\"seq\":\(sequence),\"utc_offset_min\":\(offset)"
            + ",\"activity\":\(activity),\"session_start\":\(record.startsSession)}"
    }
}
