import BandGATT
import BandTrace
import BandWire
import CommandKit

/// JSON for decoded characteristic values and decode errors: one key per characteristic,
/// the same keys `band stream --json` uses for live values.
///
/// | key | value |
/// |---|---|
/// | `heart_rate` | `{"bpm": 82, "contact": true\|false\|null (unsupported), "energy_kj": n\|null, "rr": [694, 660]}` (RR raw, 1/1024 s) |
/// | `rsc` | `{"speed": m/s, "cadence": 1/min, "stride_m": m\|null, "distance_m": m\|null, "running": bool}` |
/// | `battery` | percent |
/// | `body_sensor_location` | `"chest"`, `"wrist"`, … |
/// | `cccd` | `{"notify": bool, "indicate": bool}` |
/// | `hr_control_point` | the command byte |
enum CharacteristicJSON {
    /// Takes the value (it is the caller's last use) so the payloads are moved out, not copied.
    static func write(_ value: consuming CharacteristicValue, to json: inout JSONLine) {
        switch consume value {
        case .heartRateMeasurement(let hr):
            json.key("heart_rate")
            json.beginObject()
            json.key("bpm"); json.value(Int(hr.beatsPerMinute))
            json.key("contact")
            switch hr.sensorContact {
            case .notSupported: json.null()
            case .notDetected: json.value(false)
            case .detected: json.value(true)
            }
            json.key("energy_kj")
            if let energy = hr.energyExpended { json.value(Int(energy)) } else { json.null() }
            json.key("rr")
            json.beginArray()
            hr.rrIntervals?.forEachRawValue { json.value(Int($0)) }
            json.endArray()
            json.endObject()
        case .rscMeasurement(let rsc):
            json.key("rsc")
            json.beginObject()
            json.key("speed"); json.value(numerator: Int64(rsc.instantaneousSpeed), denominator: 256)
            json.key("cadence"); json.value(Int(rsc.instantaneousCadence))
            json.key("stride_m")
            if let stride = rsc.instantaneousStrideLength { json.value(numerator: Int64(stride), denominator: 100) } else { json.null() }
            json.key("distance_m")
            if let distance = rsc.totalDistance { json.value(numerator: Int64(distance), denominator: 10) } else { json.null() }
            json.key("running"); json.value(rsc.isRunning)
            json.endObject()
        case .batteryLevel(let battery):
            json.key("battery"); json.value(Int(battery.percent))
        case .bodySensorLocation(let location):
            json.key("body_sensor_location"); json.value(location.description)
        case .clientCharacteristicConfiguration(let cccd):
            json.key("cccd")
            json.beginObject()
            json.key("notify"); json.value(cccd.notificationsEnabled)
            json.key("indicate"); json.value(cccd.indicationsEnabled)
            json.endObject()
        case .heartRateControlPoint(let command):
            json.key("hr_control_point"); json.value(Int(command.rawValue))
        default:
            break
        }
    }

    /// `{"kind": "truncated", "offset": 3, "field": "heart rate value"}`, offset within the PDU.
    static func write(error: ParseError, to json: inout JSONLine) {
        json.beginObject()
        json.key("kind"); json.value(error.kind.rawValue)
        json.key("offset"); json.value(error.offset)
        json.key("field"); json.value(verbatim: error.field)  // BandKit's own field names
        json.endObject()
    }
}

/// Readable decoded values for the text format: `  HR 82 bpm contact RR 694,660`.
enum CharacteristicText {
    static func write(_ value: CharacteristicValue, to output: BufferedOutput) {
        switch value {
        case .heartRateMeasurement(let hr):
            output.append("  HR ")
            output.append(decimal: Int(hr.beatsPerMinute))
            output.append(" bpm")
            switch hr.sensorContact {
            case .notSupported: break
            case .notDetected: output.append(" no-contact")
            case .detected: output.append(" contact")
            }
            if let energy = hr.energyExpended {
                output.append(" energy ")
                output.append(decimal: Int(energy))
                output.append(" kJ")
            }
            if let intervals = hr.rrIntervals, !intervals.isEmpty {
                output.append(" RR")
                var separator: UInt8 = UInt8(ascii: " ")
                for interval in intervals {
                    output.append(separator)
                    output.append(decimal: Int(interval.rawValue))
                    separator = UInt8(ascii: ",")
                }
                output.append("/1024 s")
            }
        case .rscMeasurement(let rsc):
            output.append("  RSC ")
            output.append(numerator: Int64(rsc.instantaneousSpeed), denominator: 256)
            output.append(" m/s ")
            output.append(decimal: Int(rsc.instantaneousCadence))
            output.append("/min")
            if let stride = rsc.instantaneousStrideLength {
                output.append(" stride ")
                output.append(numerator: Int64(stride), denominator: 100)
                output.append(" m")
            }
            if let distance = rsc.totalDistance {
                output.append(" distance ")
                output.append(numerator: Int64(distance), denominator: 10)
                output.append(" m")
            }
            output.append(rsc.isRunning ? " running" : " walking")
        case .batteryLevel(let battery):
            output.append("  battery ")
            output.append(decimal: Int(battery.percent))
            output.append(" %")
        case .bodySensorLocation(let location):
            output.append("  sensor location ")
            output.append(location.description)
        default:
            output.append("  ")
            output.append(TerminalText.escaped(String(describing: value)))  // device names come from the air
        }
    }
}
