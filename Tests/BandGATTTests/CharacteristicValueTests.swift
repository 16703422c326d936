import BandGATT
import BandTestSupport
import BandWire
import Testing

@Suite struct CharacteristicValueTests {
    func value(_ uuid: BluetoothUUID, _ hex: String) throws(ParseError) -> CharacteristicValue {
        try parse(bytes(hex)) { (cursor) throws(ParseError) in try CharacteristicValue(uuid: uuid, parsing: &cursor) }
    }

    @Test func dispatchesOnTheUUID() throws {
        #expect(try value(GATTUUID.Characteristic.heartRateMeasurement, "06 52")
                == .heartRateMeasurement(HeartRateMeasurement(beatsPerMinute: 82, sensorContact: .detected)))
        #expect(try value(GATTUUID.Characteristic.batteryLevel, "5a") == .batteryLevel(BatteryLevel(percent: 90)!))
        #expect(try value(GATTUUID.Characteristic.bodySensorLocation, "02") == .bodySensorLocation(.wrist))
        #expect(try value(GATTUUID.Characteristic.modelNumberString, "42 31") == .modelNumber(DeviceInformationString("B1")))
        #expect(try value(GATTUUID.Characteristic.deviceName, "42 31") == .deviceName(DeviceInformationString("B1")))
        #expect(try value(GATTUUID.Descriptor.clientCharacteristicConfiguration, "01 00")
                == .clientCharacteristicConfiguration(.notifications))
        guard case .rscMeasurement(let rsc) = try value(GATTUUID.Characteristic.rscMeasurement, "00 40 01 64") else {
            Issue.record("not RSC"); return
        }
        #expect(rsc.speedMetersPerSecond == 1.25)
    }

    @Test func unknownUUIDKeepsTheRawValue() throws {
        let custom = BluetoothUUID(string: "00000007-0000-3512-2118-0009af100700")!
        #expect(!CharacteristicValue.isKnown(custom))
        #expect(CharacteristicValue.isKnown(GATTUUID.Characteristic.currentTime))
        let decoded = try value(custom, "0c 70 01 00")
        #expect(decoded == .unknown(AttributeBytes(bytes("0c 70 01 00"))))
        #expect(encoded(decoded) == bytes("0c 70 01 00"))
    }

    @Test func fixedSizeValuesRejectTrailingBytes() {
        #expect(throws: ParseError(.trailingBytes, at: 1, field: "characteristic value")) {
            _ = try value(GATTUUID.Characteristic.batteryLevel, "5a 00")
        }
    }

    @Test func errorsPropagateWithTheirOffsets() {
        #expect(throws: ParseError(.truncated, at: 6, field: "RR-interval")) {
            _ = try value(GATTUUID.Characteristic.heartRateMeasurement, "16 55 b6 02 94 02 01")
        }
        #expect(throws: ParseError(.invalidValue, at: 2, field: "month")) {
            _ = try value(GATTUUID.Characteristic.currentTime, "ea 07 0d 1e 09 05 07 01 80 01")
        }
    }

    @Test(arguments: [
        (GATTUUID.Characteristic.heartRateMeasurement, "1f 2c 01 34 12 b6 02 94 02"),
        (GATTUUID.Characteristic.rscMeasurement, "07 80 03 ac 7d 00 d1 a8 00 00"),
        (GATTUUID.Characteristic.currentTime, "ea 07 0b 1e 09 05 07 01 80 01"),
        (GATTUUID.Characteristic.localTimeInformation, "04 04"),
        (GATTUUID.Characteristic.appearance, "41 03"),
        (GATTUUID.Characteristic.systemID, "01 02 03 04 05 aa bb cc"),
        (GATTUUID.Characteristic.serviceChanged, "01 00 ff ff"),
        (GATTUUID.Characteristic.rscFeature, "07 00"),
        (GATTUUID.Characteristic.heartRateControlPoint, "01"),
        (GATTUUID.Characteristic.dateTime, "ea 07 0b 1e 09 05 07"),
        (GATTUUID.Characteristic.firmwareRevisionString, "31 2e 32 2e 33"),
    ])
    func everyKnownValueReencodesByteForByte(uuid: BluetoothUUID, hex: String) throws {
        let decoded = try value(uuid, hex)
        if case .unknown = decoded { Issue.record("\(uuid) fell through to unknown") }
        #expect(encoded(decoded) == bytes(hex))
    }
}

@Suite struct SummaryTests {
    @Test func summariesUseSIGUnits() throws {
        let hr = try decode(HeartRateMeasurement.self, bytes("1e 55 0c 00 b6 02 94 02"))
        #expect(hr.summary == "85 bpm, contact detected, energy 12 kJ, RR 694 660 (1/1024 s)")
        #expect(try decode(RSCMeasurement.self, bytes("07 80 03 ac 7d 00 d1 a8 00 00")).summary
                == "running 3.5 m/s, 172 /min, stride 1.25 m, total 4321.7 m")
        #expect(try decode(LocalTimeInformation.self, bytes("04 04")).summary == "UTC+01:00, DST +60 min")
        #expect(try decode(LocalTimeInformation.self, bytes("de 00")).summary == "UTC-08:30, DST +0 min")
        #expect(try decode(LocalTimeInformation.self, bytes("80 ff")).summary == "time zone unknown, DST unknown")
        #expect(try decode(CurrentTime.self, bytes("ea 07 0b 1e 09 05 07 01 80 01")).summary
                == "2026-11-30 09:05:07 +128/256 s, day 1, adjust 0x1")
        #expect(CharacteristicValue.batteryLevel(BatteryLevel(percent: 90)!).summary == "battery 90 %")
        #expect(try decode(HeartRateMeasurement.self, bytes("10 52")).summary == "82 bpm, RR none")
        #expect(CharacteristicValue.unknown(AttributeBytes(bytes("0c 70"))).summary == "value 0c70")
    }
}
