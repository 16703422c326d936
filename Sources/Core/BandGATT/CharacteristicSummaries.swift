// One-line human summaries of decoded values, for logs and text output. Units are the SIG's,
// converted as in docs/protocol.md. A `summary` property rather than `CustomStringConvertible`,
// so `String(describing:)` keeps showing every stored field.

extension HeartRateMeasurement {
    /// `85 bpm, contact detected, energy 12 kJ, RR 694 660 (1/1024 s)`.
    public var summary: String {
        var parts = ["\(beatsPerMinute) bpm"]
        switch sensorContact {
        case .notSupported: break
        case .notDetected: parts.append("no contact")
        case .detected: parts.append("contact detected")
        }
        if let energyExpended { parts.append("energy \(energyExpended) kJ") }
        if let rrIntervals {
            parts.append(rrIntervals.isEmpty ? "RR none" : "RR" + rrIntervals.map { " \($0.rawValue)" }.joined() + " (1/1024 s)")
        }
        return parts.joined(separator: ", ")
    }
}

extension RSCMeasurement {
    /// `running 3.5 m/s, 172 /min, stride 1.25 m, total 4321.7 m`.
    public var summary: String {
        var parts = ["\(isRunning ? "running" : "walking") \(speedMetersPerSecond) m/s", "\(instantaneousCadence) /min"]
        if let strideLengthMeters { parts.append("stride \(strideLengthMeters) m") }
        if let totalDistanceMeters { parts.append("total \(totalDistanceMeters) m") }
        return parts.joined(separator: ", ")
    }
}

extension CurrentTime {
    /// `2026-11-30 09:05:07 +128/256 s, day 1, adjust 0x01`.
    public var summary: String {
        "\(dateTime) +\(fractions256)/256 s, day \(dayOfWeek.rawValue), adjust 0x\(String(adjustReason.rawValue, radix: 16))"
    }
}

extension LocalTimeInformation {
    /// `UTC+01:00, DST +60 min`; `unknown` for either part the band does not know.
    public var summary: String {
        let zone: String
        if let seconds = timeZoneSeconds {
            let minutes = abs(seconds) / 60
            let hh = String(minutes / 60), mm = String(minutes % 60)
            zone = "UTC\(seconds < 0 ? "-" : "+")\(hh.count < 2 ? "0" + hh : hh):\(mm.count < 2 ? "0" + mm : mm)"
        } else {
            zone = "time zone unknown"
        }
        let dst = dstOffset.seconds.map { "DST +\($0 / 60) min" } ?? "DST unknown"
        return "\(zone), \(dst)"
    }
}

extension CharacteristicValue {
    public var summary: String {
        switch self {
        case .heartRateMeasurement(let value): "heart rate \(value.summary)"
        case .bodySensorLocation(let value): "body sensor location \(value)"
        case .heartRateControlPoint(let value): "heart rate control point 0x\(String(value.rawValue, radix: 16))"
        case .rscMeasurement(let value): "RSC \(value.summary)"
        case .rscFeature(let value): "RSC feature 0x\(String(value.rawValue, radix: 16))"
        case .batteryLevel(let value): "battery \(value)"
        case .currentTime(let value): "current time \(value.summary)"
        case .dateTime(let value): "date time \(value)"
        case .localTimeInformation(let value): "local time \(value.summary)"
        case .deviceName(let value): "device name \"\(value)\""
        case .appearance(let value): "appearance 0x\(String(value.rawValue, radix: 16))"
        case .serviceChanged(let value): "service changed 0x\(String(value.affectedRange.start, radix: 16))–0x\(String(value.affectedRange.end, radix: 16))"
        case .systemID(let value):
            "system ID \(String(value.manufacturerIdentifier, radix: 16)) OUI \(String(value.organizationallyUniqueIdentifier, radix: 16))"
        case .manufacturerName(let value): "manufacturer \"\(value)\""
        case .modelNumber(let value): "model \"\(value)\""
        case .serialNumber(let value): "serial \"\(value)\""
        case .hardwareRevision(let value): "hardware \"\(value)\""
        case .firmwareRevision(let value): "firmware \"\(value)\""
        case .softwareRevision(let value): "software \"\(value)\""
        case .clientCharacteristicConfiguration(let value):
            "CCCD notifications \(value.notificationsEnabled ? "on" : "off"), indications \(value.indicationsEnabled ? "on" : "off")"
        case .unknown(let bytes): "value \(bytes)"
        }
    }
}
