import BandFirmware
import BandGATT
import BandLink
import BandProtocol
import BandTestSupport
import BandWire
import Testing

/// The Linux-only ATT conversations. Discovery, reads, writes, CCCDs, control points and the
/// error responses run on the Linux band and on the chip's band alike in
/// ChipRuntimeTests/ATTConversationTests; these stay here because the chip differs or lacks the
/// feature: its MTU (247, not 517), its fixed device name (no long name to Read Blob through), its
/// confirmation (always automatic, no `--confirm deny`) and its link (the UART, no socket to hang up).
@Suite("ATT server: fixed handles, MTU, Read Blob, refused confirmation, hang-up (Linux band)")
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

    @Test("The table written out as constant data is the one its service list defines, attribute for attribute")
    func constantTableMatchesTheServiceList() {
        // The builder the band ran at start-up before the table became constant data.
        var built: [(type: BluetoothUUID, role: BandAttributeTable.Role, serviceEnd: UInt16)] = []
        for service in BandAttributeTable.services {
            var length = 1
            for characteristic in service.characteristics { length += characteristic.needsConfiguration ? 3 : 2 }
            let serviceEnd = UInt16(built.count + length)
            built.append((BandAttributeTable.primaryServiceType, .primaryService(service.uuid), serviceEnd))
            for characteristic in service.characteristics {
                built.append((BandAttributeTable.characteristicType, .declaration(characteristic), serviceEnd))
                built.append((characteristic.uuid, .value(characteristic), serviceEnd))
                if characteristic.needsConfiguration {
                    built.append((BandAttributeTable.configurationType, .configuration(characteristic), serviceEnd))
                }
            }
        }
        #expect(Int(BandAttributeTable.lastHandle) == built.count)
        for (index, expected) in built.enumerated() {
            let attribute = BandAttributeTable.attribute(at: index)
            #expect(attribute.handle == UInt16(index + 1) && attribute.type == expected.type && attribute.role == expected.role
                    && attribute.serviceEnd == expected.serviceEnd, "handle \(index + 1)")
            #expect(BandAttributeTable.attribute(UInt16(index + 1))?.role == expected.role)
        }
        #expect(BandAttributeTable.attribute(0) == nil && BandAttributeTable.attribute(UInt16(built.count + 1)) == nil)
        for characteristic in Characteristic.allCases {
            let value = built.firstIndex { $0.role == .value(characteristic) }.map { UInt16($0 + 1) }
            let configuration = built.firstIndex { $0.role == .configuration(characteristic) }.map { UInt16($0 + 1) } ?? 0
            #expect(BandAttributeTable.valueHandle(characteristic) == value, "\(characteristic)")
            #expect(BandAttributeTable.configurationHandle(characteristic) == configuration, "\(characteristic)")
        }
    }

    @Test("Each characteristic's UUID is its GATTUUID constant (the band's own: BandActivityService's)")
    func characteristicUUIDs() {
        let expected: [Characteristic: BluetoothUUID] = [
            .deviceName: GATTUUID.Characteristic.deviceName, .appearance: GATTUUID.Characteristic.appearance,
            .serviceChanged: GATTUUID.Characteristic.serviceChanged,
            .manufacturerName: GATTUUID.Characteristic.manufacturerNameString, .modelNumber: GATTUUID.Characteristic.modelNumberString,
            .serialNumber: GATTUUID.Characteristic.serialNumberString, .firmwareRevision: GATTUUID.Characteristic.firmwareRevisionString,
            .batteryLevel: GATTUUID.Characteristic.batteryLevel,
            .heartRateMeasurement: GATTUUID.Characteristic.heartRateMeasurement,
            .bodySensorLocation: GATTUUID.Characteristic.bodySensorLocation,
            .heartRateControlPoint: GATTUUID.Characteristic.heartRateControlPoint,
            .rscMeasurement: GATTUUID.Characteristic.rscMeasurement, .rscFeature: GATTUUID.Characteristic.rscFeature,
            .currentTime: GATTUUID.Characteristic.currentTime, .localTimeInformation: GATTUUID.Characteristic.localTimeInformation,
            .liveActivity: BandActivityService.liveActivity, .historyControlPoint: BandActivityService.historyControlPoint,
            .historyData: BandActivityService.historyData, .authControlPoint: BandActivityService.authControlPoint,
        ]
        #expect(expected.count == Characteristic.allCases.count)
        for characteristic in Characteristic.allCases {
            #expect(characteristic.uuid == expected[characteristic], "\(characteristic)")
        }
    }

    @Test("MTU exchange answers 517 and takes the smaller MTU; a second exchange is refused")
    func mtuExchange() throws {
        let c = try Conversation()
        try c.exchange("02 f700", "03 0502")
        #expect(c.reader.mtu == 23, "the reader side sets its own MTU")
        try c.exchange("02 f700", "01 02 0000 06")
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

    @Test("A PDU after the reader hung up does not crash the band; it just drops the connection")
    func readerHangsUp() throws {
        let c = try Conversation()
        c.reader.close()
        c.band.pump()
        #expect(!c.band.isConnected)
        c.band.advance(by: .seconds(3))
    }
}
