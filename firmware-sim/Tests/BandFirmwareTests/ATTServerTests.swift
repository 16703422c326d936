import BandFirmware
import BandLink
import BandTestSupport
import BandWire
import Testing

@Suite("ATT server: MTU, discovery, reads, writes and their errors")
struct ATTServerTests {
    @Test("GATT database handles are fixed (the layout docs/protocol.md and the tests rely on)")
    func fixedHandles() {
        #expect(BandAttributeTable.lastHandle == 0x0037)
        #expect(BandAttributeTable.valueHandle(.heartRateMeasurement) == Handles.heartRateMeasurement)
        #expect(BandAttributeTable.configurationHandle(.heartRateMeasurement) == Handles.heartRateCCCD)
        #expect(BandAttributeTable.valueHandle(.liveActivity) == Handles.liveActivity)
        #expect(BandAttributeTable.valueHandle(.historyControlPoint) == Handles.historyControlPoint)
        #expect(BandAttributeTable.valueHandle(.historyData) == Handles.historyData)
        #expect(BandAttributeTable.valueHandle(.authControlPoint) == Handles.authControlPoint)
        #expect(BandAttributeTable.configurationHandle(.authControlPoint) == Handles.authControlPointCCCD)
        #expect(BandAttributeTable.valueHandle(.currentTime) == Handles.currentTime)
        #expect(BandAttributeTable.configurationHandle(.deviceName) == 0)
    }

    @Test("MTU exchange answers 517 and takes the smaller MTU; a second exchange is refused")
    func mtuExchange() throws {
        let c = try Conversation()
        try c.exchange("02 f700", "03 0502")
        #expect(c.reader.mtu == 23, "the reader side sets its own MTU")
        try c.exchange("02 f700", "01 02 0000 06")
    }

    @Test("Primary services are discovered in MTU-sized pages, 16-bit then 128-bit, ending with Attribute Not Found")
    func primaryServiceDiscovery() throws {
        let c = try Conversation()
        try c.exchange("10 0100 ffff 0028", "11 06 0100 0500 0018 0600 0900 0118 0a00 1200 0a18")
        try c.exchange("10 1300 ffff 0028", "11 06 1300 1600 0f18 1700 1e00 0d18 1f00 2400 1418")
        try c.exchange("10 2500 ffff 0028", "11 06 2500 2a00 0518")
        try c.exchange("10 2b00 ffff 0028", "11 14 2b00 3700 367a8b0e1f2d6c9a1a4b2f4e0100c0b5")
        try c.exchange("10 3800 ffff 0028", "01 10 3800 0a")
    }

    @Test("Find By Type Value finds the Heart Rate service by its UUID")
    func findServiceByUUID() throws {
        let c = try Conversation()
        try c.exchange("06 0100 ffff 0028 0d18", "07 1700 1e00")
        try c.exchange("06 0100 ffff 0028 367a8b0e1f2d6c9a1a4b2f4e0100c0b5", "07 2b00 3700")
        try c.exchange("06 0100 ffff 0028 9918", "01 06 0100 0a")
    }

    @Test("Characteristic declarations come back as properties, value handle, UUID")
    func characteristicDiscovery() throws {
        let c = try Conversation()
        try c.exchange("08 0100 0500 0328", "09 07 0200 020300 002a 0400 020500 012a")
        try c.exchange("08 1700 1e00 0328", "09 07 1800 101900 372a 1b00 021c00 382a 1d00 081e00 392a")
        try c.exchange("08 2b00 2f00 0328", "09 15 2c00 122d00 367a8b0e1f2d6c9a1a4b2f4e0200c0b5")
        try c.exchange("08 3800 ffff 0328", "01 08 3800 0a")
    }

    @Test("Find Information lists descriptors with their 16-bit types")
    func descriptorDiscovery() throws {
        let c = try Conversation()
        try c.exchange("04 1900 1a00", "05 01 1900 372a 1a00 0229")
        try c.exchange("04 2d00 2d00", "05 02 2d00 367a8b0e1f2d6c9a1a4b2f4e0200c0b5")
        try c.exchange("04 3800 ffff", "01 04 3800 0a")
    }

    @Test("Reads of static values: device name, appearance, body sensor location, RSC feature")
    func staticReads() throws {
        let c = try Conversation()
        try c.exchange("0a 0300", "0b " + Hex.encode(Array("BandKit Band".utf8)))
        try c.exchange("0a 0500", "0b c100")
        try c.exchange("0a 1c00", "0b 02")
        try c.exchange("0a 2400", "0b 0700")
        try c.exchange("0a 1500", "0b 64")
    }

    @Test("Read Blob continues a value longer than ATT_MTU − 1; past the end is Invalid Offset")
    func readBlob() throws {
        var configuration = testConfiguration()
        configuration.deviceName = "BandKit Band with a long name"
        let c = try Conversation(configuration)
        let name = Array("BandKit Band with a long name".utf8)
        try c.exchange("0a 0300", "0b " + Hex.encode(name[0..<22]))
        try c.exchange("0c 0300 1600", "0d " + Hex.encode(name[22...]))
        try c.exchange("0c 0300 1d00", "0d")
        try c.exchange("0c 0300 1e00", "01 0c 0300 07")
    }

    @Test("Invalid handles, forbidden reads and writes, and bad ranges get their error codes")
    func errorResponses() throws {
        let c = try Conversation()
        try c.exchange("0a 0000", "01 0a 0000 01")
        try c.exchange("0a 3800", "01 0a 3800 01")
        try c.exchange("0a 1900", "01 0a 1900 02")
        try c.exchange("0a 1e00", "01 0a 1e00 02")
        try c.exchange("12 0300 41", "01 12 0300 03")
        try c.exchange("12 0100 41", "01 12 0100 03")
        try c.exchange("12 3800 41", "01 12 3800 01")
        try c.exchange("08 0500 0100 0328", "01 08 0500 01")
        try c.exchange("08 0000 0100 0328", "01 08 0000 01")
        try c.exchange("10 0100 ffff 0328", "01 10 0100 10")
    }

    @Test("A malformed request is Invalid PDU; unknown requests and queued writes are Request Not Supported")
    func malformedAndUnsupported() throws {
        let c = try Conversation()
        try c.exchange("0a 03", "01 0a 0000 04")
        try c.exchange("02", "01 02 0000 04")
        try c.exchange("08 0100 ffff 03", "01 08 0000 04")
        try c.exchange("3f 0102", "01 3f 0000 06")
        // Request Not Supported names handle 0x0000 (Core 5.4 Vol 3 Part F §3.4.1.1).
        try c.exchange("16 0300 0000 41", "01 16 0000 06")
        try c.exchange("18 01", "01 18 0000 06")
        try c.exchange("0e 0300 0500", "01 0e 0000 06")
    }

    @Test("Commands never get a response, not even an error")
    func commandsAreSilent() throws {
        let c = try Conversation()
        try c.send("52 0300 41")        // Write Command to a read-only value
        try c.send("52 3800 41")        // to an invalid handle
        try c.send("7f 00")             // unknown command
        try c.send("d2 0300 41 000000000000000000000000") // signed write
        try c.expectSilence()
        try c.exchange("0a 0500", "0b c100") // and the band still answers
    }

    @Test("CCCD: notifications on, wrong length refused, unsupported bits refused, value reads back")
    func clientConfiguration() throws {
        let c = try Conversation()
        try c.exchange("0a 1a00", "0b 0000")
        try c.exchange("12 1a00 010000", "01 12 1a00 0d")
        try c.exchange("12 1a00 0200", "01 12 1a00 13")
        try c.exchange("12 1a00 0100", "13")
        try c.exchange("0a 1a00", "0b 0100")
    }

    @Test("Heart rate notifications arrive each second once enabled, in the full 0x2A37 format")
    func heartRateNotifications() throws {
        let c = try Conversation()
        c.band.advance(by: .seconds(5))
        try c.expectSilence()
        try c.exchange("12 1a00 0100", "13")
        c.band.advance(by: .seconds(10))
        let notifications = try c.drain().filter { $0.first == 0x1B }
        #expect(notifications.count == 10)
        for pdu in notifications {
            #expect(pdu[1] == 0x19 && pdu[2] == 0x00)
            let flags = pdu[3]
            #expect(flags & 0x06 == 0x06, "sensor contact supported and detected while worn")
            #expect((60...160).contains(pdu[4]), "walking heart rate \(pdu[4])")
            if flags & 0x10 != 0 { #expect((pdu.count - 5 - (flags & 0x08 != 0 ? 2 : 0)) % 2 == 0) }
        }
        #expect(notifications.contains { $0[3] & 0x08 != 0 }, "energy expended is included every tenth notification")
        #expect(notifications.contains { $0[3] & 0x10 != 0 }, "RR intervals present")
    }

    @Test("Heart Rate Control Point: 0x01 resets energy; any other value is 0x80 Control Point Not Supported")
    func heartRateControlPoint() throws {
        let c = try Conversation()
        try c.exchange("12 1e00 01", "13")
        try c.exchange("12 1e00 02", "01 12 1e00 80")
        try c.exchange("12 1e00 0101", "01 12 1e00 0d")
    }

    @Test("Indications wait for their confirmation; the control point is busy meanwhile")
    func indicationNeedsConfirmation() throws {
        var configuration = testConfiguration()
        configuration.confirmation = .deny
        let c = try Conversation(configuration)
        try c.exchange("12 3700 0200", "13")
        try c.exchange("12 3600 01 8877665544332211", "13")
        try c.expect("1d 3600 8101")
        try c.exchange("12 3600 01 8877665544332211", "01 12 3600 fe")
        try c.send("1e")
        try c.exchange("12 3600 01 8877665544332211", "13")
        try c.expect("1d 3600 8101")
    }

    @Test("A control point written without indications enabled is CCCD Improperly Configured")
    func controlPointNeedsIndications() throws {
        let c = try Conversation()
        try c.exchange("12 3600 01 8877665544332211", "01 12 3600 fd")
    }

    @Test("Control point values: unknown opcode is Value Not Allowed, wrong length Invalid Attribute Value Length")
    func controlPointValueErrors() throws {
        let c = try Conversation()
        try c.exchange("12 3700 0200", "13")
        try c.exchange("12 3600 7f", "01 12 3600 13")
        try c.exchange("12 3600 01 88776655", "01 12 3600 0d")
        try c.exchange("12 3600 01 887766554433221100", "01 12 3600 0d")
    }

    @Test("A PDU after the reader hung up does not crash the band; it just drops the connection")
    func readerHangsUp() throws {
        let c = try Conversation()
        c.reader.close()
        c.band.pump()
        #expect(!c.band.isConnected)
        c.band.advance(by: .seconds(3))
    }
}
