import BandATT
import BandGATT
import BandTestSupport
import BandWire
import Testing

@Suite struct DeclarationTests {
    @Test func characteristicDeclarationWith16BitUUID() throws {
        // Heart Rate Measurement: notify, value handle 0x0012.
        let declaration = try decode(CharacteristicDeclaration.self, bytes("10 12 00 37 2a"))
        #expect(declaration == CharacteristicDeclaration(properties: .notify, valueHandle: 0x0012,
                                                         uuid: GATTUUID.Characteristic.heartRateMeasurement))
        #expect(encoded(declaration) == bytes("10 12 00 37 2a"))
    }

    @Test func characteristicDeclarationWith128BitUUID() throws {
        let input = bytes("1a 21 00 9e ca dc 24 0e e5 a9 e0 93 f3 a3 b5 03 00 40 6e")
        let declaration = try decode(CharacteristicDeclaration.self, input)
        #expect(declaration.properties == [.read, .write, .notify])
        #expect(declaration.valueHandle == 0x0021)
        #expect(declaration.uuid.description == "6e400003-b5a3-f393-e0a9-e50e24dcca9e")
        #expect(encoded(declaration) == input)
    }

    @Test func characteristicDeclarationRejectsHandleZeroAndOddUUIDWidths() {
        #expect(throws: ParseError(.invalidValue, at: 1, field: "characteristic value handle")) {
            _ = try decode(CharacteristicDeclaration.self, bytes("02 00 00 00 2a"))
        }
        #expect(throws: ParseError(.truncated, at: 3, field: "characteristic UUID")) {
            _ = try decode(CharacteristicDeclaration.self, bytes("02 03 00 00 2a 00 00"))
        }
        #expect(throws: ParseError(.trailingBytes, at: 19, field: "characteristic UUID")) {
            _ = try decode(CharacteristicDeclaration.self, bytes("02 03 00") + [UInt8](repeating: 1, count: 17))
        }
        #expect(prefixesNotTruncated(CharacteristicDeclaration.self, bytes("10 12 00 37 2a")) == [])
    }

    @Test func propertiesBitsMatchCoreTable3_5() {
        #expect(CharacteristicProperties.broadcast.rawValue == 0x01)
        #expect(CharacteristicProperties.read.rawValue == 0x02)
        #expect(CharacteristicProperties.writeWithoutResponse.rawValue == 0x04)
        #expect(CharacteristicProperties.write.rawValue == 0x08)
        #expect(CharacteristicProperties.notify.rawValue == 0x10)
        #expect(CharacteristicProperties.indicate.rawValue == 0x20)
        #expect(CharacteristicProperties.authenticatedSignedWrites.rawValue == 0x40)
        #expect(CharacteristicProperties.extendedProperties.rawValue == 0x80)
    }

    @Test func serviceDeclarationIsTheServiceUUID() throws {
        #expect(try decode(ServiceDeclaration.self, bytes("0d 18")).uuid == GATTUUID.Service.heartRate)
        #expect(encoded(ServiceDeclaration(uuid: GATTUUID.Service.battery)) == bytes("0f 18"))
        #expect(throws: ParseError(.truncated, at: 0, field: "service UUID")) { _ = try decode(ServiceDeclaration.self, bytes("0d")) }
    }

    @Test func includeDeclarationCarriesAUUIDOnlyWhen16Bit() throws {
        let with = try decode(IncludeDeclaration.self, bytes("14 00 18 00 0f 18"))
        #expect(with == IncludeDeclaration(includedServiceHandle: 0x14, endGroupHandle: 0x18, uuid: GATTUUID.Service.battery))
        let without = try decode(IncludeDeclaration.self, bytes("14 00 18 00"))
        #expect(without.uuid == nil)
        #expect(encoded(without) == bytes("14 00 18 00"))
        #expect(throws: ParseError(.truncated, at: 4, field: "service UUID")) { _ = try decode(IncludeDeclaration.self, bytes("14 00 18 00 0f")) }
        #expect(throws: ParseError(.invalidValue, at: 0, field: "included service attribute handle")) {
            _ = try decode(IncludeDeclaration.self, bytes("00 00 18 00"))
        }
    }

    @Test func cccdEnablesNotificationsWith0100AndKeepsReservedBits() throws {
        #expect(encoded(ClientCharacteristicConfiguration.notifications) == bytes("01 00"))
        #expect(encoded(ClientCharacteristicConfiguration.indications) == bytes("02 00"))
        let odd = try decode(ClientCharacteristicConfiguration.self, bytes("05 80"))
        #expect(odd.notificationsEnabled)
        #expect(!odd.indicationsEnabled)
        #expect(odd.reservedBits == 0x8004)
        #expect(encoded(odd) == bytes("05 80"))
        #expect(prefixesNotTruncated(ClientCharacteristicConfiguration.self, bytes("01 00")) == [])
    }

    @Test func uuidNamespacesHoldTheAssignedNumbers() {
        #expect(GATTUUID.Service.genericAccess.shortValue == 0x1800)
        #expect(GATTUUID.Service.genericAttribute.shortValue == 0x1801)
        #expect(GATTUUID.Service.currentTime.shortValue == 0x1805)
        #expect(GATTUUID.Service.deviceInformation.shortValue == 0x180A)
        #expect(GATTUUID.Service.heartRate.shortValue == 0x180D)
        #expect(GATTUUID.Service.battery.shortValue == 0x180F)
        #expect(GATTUUID.Service.runningSpeedAndCadence.shortValue == 0x1814)
        #expect(GATTUUID.Declaration.primaryService.shortValue == 0x2800)
        #expect(GATTUUID.Declaration.secondaryService.shortValue == 0x2801)
        #expect(GATTUUID.Declaration.include.shortValue == 0x2802)
        #expect(GATTUUID.Declaration.characteristic.shortValue == 0x2803)
        #expect(GATTUUID.Descriptor.characteristicUserDescription.shortValue == 0x2901)
        #expect(GATTUUID.Descriptor.clientCharacteristicConfiguration.shortValue == 0x2902)
        let characteristics: [(BluetoothUUID, UInt16)] = [
            (GATTUUID.Characteristic.deviceName, 0x2A00), (GATTUUID.Characteristic.appearance, 0x2A01),
            (GATTUUID.Characteristic.serviceChanged, 0x2A05), (GATTUUID.Characteristic.localTimeInformation, 0x2A0F),
            (GATTUUID.Characteristic.batteryLevel, 0x2A19), (GATTUUID.Characteristic.systemID, 0x2A23),
            (GATTUUID.Characteristic.modelNumberString, 0x2A24), (GATTUUID.Characteristic.serialNumberString, 0x2A25),
            (GATTUUID.Characteristic.firmwareRevisionString, 0x2A26), (GATTUUID.Characteristic.hardwareRevisionString, 0x2A27),
            (GATTUUID.Characteristic.softwareRevisionString, 0x2A28), (GATTUUID.Characteristic.manufacturerNameString, 0x2A29),
            (GATTUUID.Characteristic.currentTime, 0x2A2B), (GATTUUID.Characteristic.heartRateMeasurement, 0x2A37),
            (GATTUUID.Characteristic.bodySensorLocation, 0x2A38), (GATTUUID.Characteristic.heartRateControlPoint, 0x2A39),
            (GATTUUID.Characteristic.rscMeasurement, 0x2A53), (GATTUUID.Characteristic.rscFeature, 0x2A54),
        ]
        for (uuid, short) in characteristics { #expect(uuid.shortValue == short) }
    }
}

/// Characteristic discovery in the real Mi Band 2 capture (shared/captures/README.md: the
/// Heart Rate Measurement value is at handle 0x0029, the control point at 0x002C).
@Suite struct RealCaptureDiscoveryTests {
    @Test func miBandDeclaresHeartRateMeasurementAt0x0029() throws {
        guard let file = SharedCaptures.load("miband2_ec521_btsnoop_hci.log") else {
            print("skipping: \(SharedCaptures.path("miband2_ec521_btsnoop_hci.log")) is absent")
            return
        }
        var declarations: [CharacteristicDeclaration] = []
        for pdu in try SharedCaptures.singleFragmentATTPDUs(in: file) {
            guard case .readByTypeResponse(let response) = try parse(pdu, { (c) throws(ParseError) in try ATTPDU(parsing: &c) }) else {
                continue
            }
            try response.forEachEntry { (_, value) throws(ParseError) in
                declarations.append(try CharacteristicDeclaration(parsingAll: value))
            }
        }
        let heartRate = declarations.first { $0.uuid == GATTUUID.Characteristic.heartRateMeasurement }
        #expect(heartRate?.valueHandle == 0x0029)
        #expect(heartRate?.properties.contains(.notify) == true)
        let controlPoint = declarations.first { $0.uuid == GATTUUID.Characteristic.heartRateControlPoint }
        #expect(controlPoint?.valueHandle == 0x002C)
        #expect(declarations.contains { $0.uuid == GATTUUID.Characteristic.currentTime })
    }
}
