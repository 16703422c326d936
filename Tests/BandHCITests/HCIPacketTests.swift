import BandHCI
import BandTestSupport
import BandWire
import Testing

/// HCI packets and events as BandHCI models them for traces and for the controller socket:
/// exact re-encoding and a truncation error at every shorter length.
@Suite struct HCIPacketTests {
    func roundTrip<T: WireCodable & Equatable>(_ vector: [UInt8], as type: T.Type) throws -> T {
        let value = try parse(vector) { (c) throws(ParseError) in try T(parsing: &c) }
        #expect(value.encodedBytes() == vector)
        #expect(prefixesThatDidNotTruncate(vector) { (c) throws(ParseError) in try T(parsing: &c) } == [])
        return value
    }

    @Test func aclHeaderSplitsHandleBoundaryAndBroadcastBits() throws {
        // Handle 0x040, PB 0b10 (first, flushable), BC 0, 27 bytes: a controller → host start.
        let header = try roundTrip(bytes("40 20 1b 00"), as: HCIACLHeader.self)
        #expect(header.handle == 0x040)
        #expect(header.boundary == .firstFlushable && header.boundary.startsPDU)
        #expect(header.broadcast == 0)
        #expect(header.dataLength == 27)
        let continuation = try roundTrip(bytes("41 d0 01 00"), as: HCIACLHeader.self)
        #expect(continuation.handle == 0x041 && continuation.boundary == .continuing && continuation.broadcast == 3)
        #expect(!continuation.boundary.startsPDU)
        #expect(ACLPacketBoundary.firstNonFlushable.startsPDU && ACLPacketBoundary.complete.startsPDU)
    }

    @Test func eventAndCommandHeaders() throws {
        let event = try roundTrip(bytes("3e 13"), as: HCIEventHeader.self)
        #expect(event.code == .leMeta && event.parameterLength == 0x13)
        let command = try roundTrip(bytes("03 0c 00"), as: HCICommandHeader.self)
        #expect(command.opcode == 0x0C03 && command.ogf == 0x03 && command.ocf == 0x003 && command.parameterLength == 0)
    }

    /// Connection 0x0040 as central to public C8:0F:10:12:34:56, interval 36 (45 ms), timeout 5 s.
    @Test func leConnectionCompleteFromARealCapture() throws {
        let vector = bytes("01 00 40 00 00 00 56 34 12 10 0f c8 24 00 00 00 f4 01 00")
        let event = try roundTrip(vector, as: LEConnectionComplete.self)
        #expect(event.status == 0 && event.handle == 0x0040 && event.role == 0)
        #expect(event.peer == LEAddress(BluetoothAddress(0xC80F_1012_3456), type: .public))
        #expect(event.peer.address.description == "C8:0F:10:12:34:56")
        #expect(event.interval == 36 && event.latency == 0 && event.supervisionTimeout == 500)
    }

    @Test func leConnectionCompleteRejectsAnotherSubevent() {
        #expect(throws: ParseError(.invalidValue, at: 0, field: "LE subevent code")) {
            try parse(bytes("0a 00 40 00 00 00 56 34 12 10 0f c8 24 00 00 00 f4 01 00")) { (c) throws(ParseError) in
                try LEConnectionComplete(parsing: &c)
            }
        }
    }

    @Test func leEnhancedConnectionCompleteCarriesBothResolvablePrivateAddresses() throws {
        let vector = bytes("0a 00 41 00 01 03 66 55 44 33 22 d1 01 02 03 04 05 46 0b 0c 0d 0e 0f 50 18 00 00 00 48 00 05")
        let event = try roundTrip(vector, as: LEEnhancedConnectionComplete.self)
        #expect(event.handle == 0x0041 && event.role == 1)
        #expect(event.peer.type == .randomIdentity)
        #expect(event.peer.address.description == "D1:22:33:44:55:66")
        #expect(event.localResolvablePrivateAddress.description == "46:05:04:03:02:01")
        #expect(event.peerResolvablePrivateAddress.description == "50:0F:0E:0D:0C:0B")
        #expect(event.interval == 24 && event.supervisionTimeout == 72 && event.clockAccuracy == 5)
    }

    @Test func disconnectionCompleteNamesHandleAndReason() throws {
        let event = try roundTrip(bytes("00 40 00 13"), as: DisconnectionComplete.self)
        #expect(event == DisconnectionComplete(status: 0, handle: 0x040, reason: 0x13))
    }

    @Test func advertisingReportGivesAddressNameAndRSSI() throws {
        // ADV_IND from a public address: Flags AD (02 01 06), Complete Local Name "MI Band 2", RSSI −67.
        let vector = bytes("02 01 00 00 56 34 12 10 0f c8 0e 02 01 06 0a 09 4d 49 20 42 61 6e 64 20 32 bd")
        let report = try roundTrip(vector, as: LEAdvertisingReport.self)
        #expect(report.entry.advertiser.address.description == "C8:0F:10:12:34:56")
        #expect(report.entry.localName == "MI Band 2")
        #expect(report.entry.rssi == -67)
    }

    @Test func advertisingDataLongerThan31BytesIsInvalid() {
        #expect(throws: ParseError(.invalidValue, at: 10, field: "advertising data length")) {
            try parse(bytes("02 01 00 00 56 34 12 10 0f c8 20") + [UInt8](repeating: 0, count: 33)) { (c) throws(ParseError) in
                try LEAdvertisingReport(parsing: &c)
            }
        }
    }
}
