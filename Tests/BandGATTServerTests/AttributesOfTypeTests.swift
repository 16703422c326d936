import BandATT
import BandGATTServer
import BandWire
import Testing

/// The one scan the three discovery requests share: attributes of a type in a handle range.
@Suite struct AttributesOfTypeTests {
    let source = StaticAttributeSource()

    func handles(_ type: BluetoothUUID, _ start: UInt16, _ end: UInt16) -> [UInt16] {
        source.attributes(ofType: type, in: ATTHandleRange(start: start, end: end)).map(\.attribute.handle)
    }

    @Test func yieldsEveryAttributeOfTheTypeInTheRangeInHandleOrderWithItsIndex() {
        #expect(handles(BluetoothUUID(0x2800), 0x0001, 0xFFFF) == [1, 6, 0x0B])
        #expect(handles(BluetoothUUID(0x2803), 0x0001, 0xFFFF) == [2, 4, 7, 0x0C])
        for (index, attribute) in source.attributes(ofType: BluetoothUUID(0x2803), in: .all) {
            #expect(source.attribute(at: index) == attribute)
        }
    }

    @Test func bothEndsOfTheRangeAreInclusiveAndHandlesBetweenRowsWork() {
        #expect(handles(BluetoothUUID(0x2800), 6, 0x0B) == [6, 0x0B])
        #expect(handles(BluetoothUUID(0x2800), 2, 5) == [])
        #expect(handles(BluetoothUUID(0x2800), 0x0A, 0x0A) == [], "a handle no row has")
        #expect(handles(BluetoothUUID(0x2800), 0x0E, 0xFFFF) == [], "past the last row")
        #expect(handles(BluetoothUUID(0x2A19), 8, 8) == [8])
    }
}
