import BandBlueZ
import BandHCI
import BandTestSupport
import BandWire
import Testing

@Suite("HCI events and commands")
struct HCIEventTests {
    static let legacyReport = bytes("04 3e 19 02 01 00 00 24 00 00 01 aa 00 0d 02 01 06 03 03 0d 18 05 09 42 61 6e 64 c5")
    static let extendedReport = bytes("""
        04 3e 27 0d 01 13 00 00 24 00 00 01 aa 00 01 00 ff 7f c5 00 00 00 00 00 00 00 00 00 \
        0d 02 01 06 03 03 0d 18 05 09 42 61 6e 64
        """)

    @Test func legacyAdvertisingReportDecodes() throws {
        let event = try HCIEventPacket(parsingAll: Self.legacyReport)
        guard case .advertisingReports(let reports, extended: false) = event.body else {
            Issue.record("not a legacy report: \(event.body)")
            return
        }
        let report = try #require(reports.first)
        #expect(reports.count == 1)
        #expect(report.address == LEAddress(try BluetoothAddress("00:AA:01:00:00:24"), type: .public))
        #expect(report.rssi == -59)
        #expect(report.isConnectable)
        #expect(!report.isScanResponse)
        #expect(report.data.localName == "Band")
        #expect(report.data.serviceUUIDs == [BluetoothUUID(0x180D)])
    }

    @Test func extendedAdvertisingReportDecodesToTheSameReport() throws {
        let legacy = try HCIEventPacket(parsingAll: Self.legacyReport)
        let extended = try HCIEventPacket(parsingAll: Self.extendedReport)
        guard case .advertisingReports(let a, false) = legacy.body, case .advertisingReports(let b, true) = extended.body else {
            Issue.record("wrong bodies")
            return
        }
        #expect(a[0].address == b[0].address)
        #expect(a[0].data == b[0].data)
        #expect(a[0].rssi == b[0].rssi)
        #expect(b[0].isConnectable && !b[0].isScanResponse)
        #expect(b[0].eventType == 0x0013)
    }

    @Test func reportsEncodeBackToTheSameBytes() throws {
        for vector in [Self.legacyReport, Self.extendedReport] {
            let event = try HCIEventPacket(parsingAll: vector)
            var out = [UInt8](repeating: 0, count: vector.count)
            let written = out.withUnsafeMutableBytes { raw in
                var writer = ByteWriter(raw)
                event.encode(into: &writer)
                return writer.overflowed ? -1 : writer.count
            }
            #expect(written == vector.count)
            #expect(out == vector)
        }
    }

    @Test func everyTruncationOfAnEventIsReportedAsTruncated() {
        for vector in [Self.legacyReport, Self.extendedReport, bytes("04 0e 04 01 0b 20 00"), bytes("04 0f 04 0c 01 0c 20")] {
            #expect(prefixesThatDidNotTruncate(vector, HCIEventPacket.init(parsing:)) == [])
        }
    }

    @Test func aParameterLengthThatDisagreesWithTheReportIsAnError() {
        // Data_Length says 14 but only 13 data bytes and the RSSI follow.
        var broken = Self.legacyReport
        broken[13] = 0x0E
        #expect(throws: ParseError.self) { try HCIEventPacket(parsingAll: broken) }
        // A report count of zero is not allowed.
        #expect(throws: ParseError(.invalidValue, at: 4, field: "Num_Reports")) {
            try HCIEventPacket(parsingAll: bytes("04 3e 02 02 00"))
        }
        // Legacy Data_Length above 31.
        #expect(throws: ParseError(.invalidValue, at: 13, field: "Data_Length")) {
            try HCIEventPacket(parsingAll: bytes("04 3e 0c 02 01 00 00 24 00 00 01 aa 00 20 c5"))
        }
    }

    @Test func commandCompleteAndStatusDecode() throws {
        let complete = try HCIEventPacket(parsingAll: bytes("04 0e 04 01 0b 20 0c"))
        #expect(complete.body == .commandComplete(HCICommandComplete(opcode: .leSetScanParameters, returnParameters: [0x0C])))
        guard case .commandComplete(let body) = complete.body else { return }
        #expect(body.status == .commandDisallowed)
        let status = try HCIEventPacket(parsingAll: bytes("04 0f 04 0c 01 0c 20"))
        #expect(status.body == .commandStatus(HCICommandStatus(status: .commandDisallowed, opcode: .leSetScanEnable)))
    }

    @Test func otherEventsAreKeptWithTheirParameters() throws {
        let event = try HCIEventPacket(parsingAll: bytes("04 05 04 00 40 00 13"))
        #expect(event.body == .other(.disconnectionComplete, parameters: [0x00, 0x40, 0x00, 0x13]))
        let meta = try HCIEventPacket(parsingAll: bytes("04 3e 02 14 00"))
        #expect(meta.body == .other(.leMeta, parameters: [0x14, 0x00]))
    }

    @Test func scanCommandsHaveTheSpecifiedLayout() throws {
        func encoded(_ command: HCICommandPacket) -> [UInt8] {
            var out = [UInt8](repeating: 0, count: 4 + command.parameters.count)
            out.withUnsafeMutableBytes { raw in
                var writer = ByteWriter(raw)
                command.encode(into: &writer)
            }
            return out
        }
        #expect(encoded(.leSetScanParameters(active: true, interval: 0x10, window: 0x10)) == bytes("01 0b 20 07 01 10 00 10 00 00 00"))
        #expect(encoded(.leSetScanEnable(true, filterDuplicates: false)) == bytes("01 0c 20 02 01 00"))
        #expect(encoded(.leSetExtendedScanParameters(active: true, interval: 0x10, window: 0x10)) == bytes("01 41 20 08 00 00 01 01 10 00 10 00"))
        #expect(encoded(.leSetExtendedScanEnable(false, filterDuplicates: false)) == bytes("01 42 20 06 00 00 00 00 00 00"))
        let parsed = try parse(bytes("01 0c 20 02 01 00"), HCICommandPacket.init(parsing:))
        #expect(parsed == .leSetScanEnable(true, filterDuplicates: false))
        #expect(HCIOpcode.leSetScanEnable.group == 0x08 && HCIOpcode.leSetScanEnable.command == 0x0C)
    }
}
