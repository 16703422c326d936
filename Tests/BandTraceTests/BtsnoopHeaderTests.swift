import BandTestSupport
import BandWire
import Testing
@testable import BandTrace

@Suite struct BtsnoopHeaderTests {
    @Test func fileHeaderOfAnAndroidSnoopLogDecodesAndEncodesByteForByte() throws {
        let vector = bytes("62 74 73 6e 6f 6f 70 00  00 00 00 01  00 00 03 ea")
        let header = try BtsnoopFileHeader(parsingAll: vector)
        #expect(header.version == 1)
        #expect(header.datalink == .h4)
        #expect(header.encodedBytes() == vector)
    }

    @Test func fileHeaderRejectsWrongMagicAtTheFirstDifferingByte() {
        #expect(throws: ParseError(.invalidValue, at: 3, field: "btsnoop magic")) {
            try BtsnoopFileHeader(parsingAll: bytes("62 74 73 00 6f 6f 70 00 00 00 00 01 00 00 03 ea"))
        }
    }

    @Test func fileHeaderRejectsVersionTwo() {
        #expect(throws: ParseError(.unsupported, at: 8, field: "btsnoop version")) {
            try BtsnoopFileHeader(parsingAll: bytes("62 74 73 6e 6f 6f 70 00 00 00 00 02 00 00 03 ea"))
        }
    }

    @Test func everyPrefixOfTheFileHeaderIsTruncated() {
        let vector = bytes("62 74 73 6e 6f 6f 70 00 00 00 00 01 00 00 07 d1")
        #expect(prefixesThatDidNotTruncate(vector) { (c) throws(ParseError) in try BtsnoopFileHeader(parsing: &c) } == [])
    }

    /// The first record of dsd6_btsnoop_hci_3.log: an HCI Reset command, 2020-05-19.
    @Test func recordHeaderDecodesBigEndianFieldsAndTheEpoch() throws {
        let vector = bytes("00 00 00 04  00 00 00 04  00 00 00 02  00 00 00 00  00 e2 83 a8 77 db a3 30")
        let header = try BtsnoopRecordHeader(parsingAll: vector)
        #expect(header.originalLength == 4)
        #expect(header.includedLength == 4)
        #expect(header.flags == 2)
        #expect(header.cumulativeDrops == 0)
        #expect(header.timestamp == 0x00E2_83A8_77DB_A330)
        #expect(header.unixMicroseconds == 0x00E2_83A8_77DB_A330 - 0x00DC_DDB3_0F2F_8000)
        #expect(header.encodedBytes() == vector)
        #expect(prefixesThatDidNotTruncate(vector) { (c) throws(ParseError) in try BtsnoopRecordHeader(parsing: &c) } == [])
    }

    @Test func timestampEpochAgreesWithBlueZsYear2000Constant() {
        // BlueZ btsnoop_write: (sec − 946684800)·10⁶ + usec + 0x00E03AB44A676000.
        let unix: Int64 = 1_700_000_000_123_456
        let bluez = (unix - 946_684_800_000_000) + 0x00E0_3AB4_4A67_6000
        #expect(BtsnoopTimestamp.btsnoop(unixMicroseconds: unix) == bluez)
        #expect(BtsnoopTimestamp.unixMicroseconds(bluez) == unix)
        // tshark shows the dsd6 capture's first record at frame.time_epoch 1589848325.235504.
        #expect(BtsnoopTimestamp.unixMicroseconds(0x00E2_83A8_77DB_A330) == 1_589_848_325_235_504)
    }
}
