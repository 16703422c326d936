import BandATT
import BandGATT
import BandTestSupport
import BandWire
import Testing

@Suite struct SimpleValueTests {
    @Test func batteryLevelIsAPercentUpTo100() throws {
        #expect(try decode(BatteryLevel.self, bytes("00")).percent == 0)
        #expect(try decode(BatteryLevel.self, bytes("64")).percent == 100)
        #expect(throws: ParseError(.invalidValue, at: 0, field: "battery level")) { _ = try decode(BatteryLevel.self, bytes("65")) }
        #expect(throws: ParseError(.invalidValue, at: 0, field: "battery level")) { _ = try decode(BatteryLevel.self, bytes("ff")) }
        #expect(throws: ParseError(.truncated, at: 0, field: "battery level")) { _ = try decode(BatteryLevel.self, []) }
        #expect(BatteryLevel(percent: 101) == nil)
        #expect(encoded(BatteryLevel(percent: 57)!) == bytes("39"))
    }

    @Test func bodySensorLocationIsOpen() throws {
        #expect(try decode(BodySensorLocation.self, bytes("01")) == .chest)
        #expect(try decode(BodySensorLocation.self, bytes("02")) == .wrist)
        let future = try decode(BodySensorLocation.self, bytes("09"))
        #expect(future.rawValue == 9)
        #expect(future.description == "reserved (9)")
        #expect(encoded(future) == bytes("09"))
        #expect(BodySensorLocation.earLobe.rawValue == 5 && BodySensorLocation.foot.rawValue == 6)
    }

    @Test func heartRateControlPointIsOpenAndHasItsErrorCode() throws {
        #expect(try decode(HeartRateControlPoint.self, bytes("01")) == .resetEnergyExpended)
        #expect(try decode(HeartRateControlPoint.self, bytes("02")).rawValue == 2)
        #expect(HeartRateControlPoint.controlPointNotSupported == ATTErrorCode(rawValue: 0x80))
        #expect(HeartRateControlPoint.controlPointNotSupported.isApplicationError)
    }

    @Test func appearanceSplitsCategoryAndSubcategory() throws {
        let belt = try decode(Appearance.self, bytes("41 03"))
        #expect(belt == .heartRateBelt)
        #expect(belt.category == 13)
        #expect(belt.subcategory == 1)
        #expect(Appearance(category: 3, subcategory: 1) == .sportsWatch)
        #expect(encoded(Appearance.genericWatch) == bytes("c0 00"))
    }

    @Test func systemIDIs40BitManufacturerThen24BitOUI() throws {
        let id = try decode(SystemID.self, bytes("01 02 03 04 05 aa bb cc"))
        #expect(id.manufacturerIdentifier == 0x05_0403_0201)
        #expect(id.organizationallyUniqueIdentifier == 0xCCBBAA)
        #expect(encoded(id) == bytes("01 02 03 04 05 aa bb cc"))
        #expect(prefixesNotTruncated(SystemID.self, bytes("01 02 03 04 05 aa bb cc")) == [])
    }

    @Test func serviceChangedRangeMustNotRunBackwards() throws {
        let changed = try decode(ServiceChanged.self, bytes("01 00 ff ff"))
        #expect(changed.affectedRange == .all)
        #expect(throws: ParseError(.invalidValue, at: 2, field: "end of affected attribute handle range")) {
            _ = try decode(ServiceChanged.self, bytes("10 00 0f 00"))
        }
    }

    @Test func deviceInformationStringKeepsUTF8Bytes() throws {
        let name = try decode(DeviceInformationString.self, Array("Bänd 2 ❤️".utf8))
        #expect(name.string == "Bänd 2 ❤️")
        #expect(encoded(name) == Array("Bänd 2 ❤️".utf8))
        let padded = try decode(DeviceInformationString.self, Array("HW1.0".utf8) + [0, 0])
        #expect(padded.string == "HW1.0")
        #expect(padded.utf8.count == 7)
        #expect(try decode(DeviceInformationString.self, []).string == "")
    }

    @Test(arguments: [
        ("41 ff 42", 1),          // 0xFF never appears in UTF-8
        ("41 c3", 2),             // lead byte without its continuation
        ("c3 41", 1),             // continuation missing
        ("c0 80", 0),             // overlong NUL
        ("e0 80 80", 1),          // overlong 3-byte form
        ("ed a0 80", 1),          // UTF-16 surrogate
        ("f4 90 80 80", 1),       // above U+10FFFF
        ("61 62 80", 2),          // stray continuation byte
        ("f0 9f 98", 3),          // 4-byte sequence cut short
    ])
    func invalidUTF8IsRejectedAtTheFirstBadByte(hex: String, offset: Int) {
        #expect(throws: ParseError(.invalidValue, at: offset, field: "UTF-8 string")) {
            _ = try decode(DeviceInformationString.self, bytes(hex))
        }
    }

    @Test func longestValidUTF8SequencesAreAccepted() throws {
        for text in ["\u{7F}", "\u{80}", "\u{7FF}", "\u{800}", "\u{FFFF}", "\u{10000}", "\u{10FFFF}", "\u{D7FF}", "\u{E000}"] {
            #expect(try decode(DeviceInformationString.self, Array(text.utf8)).string == text)
        }
    }
}
