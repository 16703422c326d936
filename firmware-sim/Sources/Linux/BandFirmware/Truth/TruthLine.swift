import BandFirmwareCore
import BandProtocol
import JSONOutput

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
        JSON.text(capacity: 256) { json in
            json.beginObject()
            json.key("minute"); json.value(CivilTime(unixSeconds: Int64(record.minuteStart)).iso8601UTC)
            json.key("steps"); json.value(Int(record.steps))
            json.key("distance_m"); json.value(Int64(record.distanceDecimetres), decimals: 1)
            json.key("energy_kcal"); json.value(Int64(record.energyDecikilocalories), decimals: 1)
            json.key("hr_avg"); json.value(record.heartRate.map { Int($0.average) })
            json.key("hr_min"); json.value(record.heartRate.map { Int($0.minimum) })
            json.key("hr_max"); json.value(record.heartRate.map { Int($0.maximum) })
            json.key("worn"); json.value(record.worn)
            json.key("seq"); json.value(Int(sequence))
            json.key("utc_offset_min"); json.value(record.utcOffset.seconds.map { $0 / 60 })
            json.key("activity")
            switch record.activity {
            case .none: json.null()
            case .walking: json.value(verbatim: "walking")
            case .running: json.value(verbatim: "running")
            default: json.value(Int(record.activity.rawValue))
            }
            json.key("session_start"); json.value(record.startsSession)
            json.endObject()
        }
    }
}
