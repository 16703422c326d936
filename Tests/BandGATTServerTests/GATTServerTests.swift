import BandATT
import BandGATTServer
import BandTestSupport
import BandWire
import Testing

/// Scripted PDU exchanges with the one GATT server over a fixed table (as BlueZ's
/// unit/test-gatt.c does): every request kind, every error a client can provoke, long reads
/// at every offset. The same server over the firmware's table is exercised by
/// BandFirmwareTests (ATTServerTests), over a replay's reconstructed table by BandReplayTests
/// (ReplayAttributeSourceTests).
@Suite("GATT server: scripted exchanges over a static table")
struct GATTServerTests {
    func conversation(mtu: Int = ATT.defaultLEMTU, readMultiple: Bool = true) -> ServerConversation<StaticAttributeSource> {
        ServerConversation(StaticAttributeSource(), server: GATTServer(serverMTU: 0x0100, mtu: mtu, answersReadMultiple: readMultiple))
    }
    var vendorService: String { Hex.encode(StaticAttributeSource.bytes(of: StaticAttributeSource.vendorService)) }
    var vendorControlPoint: String { Hex.encode(StaticAttributeSource.bytes(of: StaticAttributeSource.vendorControlPoint)) }

    @Test("Exchange MTU: the smaller of the two, never below 23; once per connection")
    func exchangeMTU() {
        let c = conversation()
        let first = c.send("02 f700")
        #expect(first.response == "030001")
        #expect(first.event == .exchangedMTU(0xF7))
        #expect(c.server.mtu == 0xF7 && c.server.mtuExchanged)
        let again = c.send("02 0002")
        #expect(again.response == "0102000006", "a second exchange: Request Not Supported")
        #expect(again.error == .requestNotSupported && c.server.mtu == 0xF7)

        let small = conversation()
        #expect(small.send("02 1000").event == .exchangedMTU(23), "a client offering 16 still gets 23")
        let large = conversation()
        #expect(large.send("02 0010").event == .exchangedMTU(0x100), "capped at the server's Receive MTU")
        #expect(GATTServer(serverMTU: 9000).serverMTU == ATT.maximumMTU)
        #expect(GATTServer(serverMTU: 5).serverMTU == ATT.defaultLEMTU)
    }

    @Test("Read By Group Type pages services by UUID width and ends with Attribute Not Found")
    func primaryServices() {
        let c = conversation()
        #expect(c.ask("10 0100 ffff 0028") == "1106" + "010005000018" + "060009000f18")
        #expect(c.ask("10 0a00 ffff 0028") == "1114" + "0b000d00" + vendorService)
        #expect(c.ask("10 0e00 ffff 0028") == "01100e000a", "past the last service: Attribute Not Found")
        #expect(c.ask("10 0100 ffff 0128") == "011001000a", "no secondary services")
        #expect(c.ask("10 0100 ffff 0328") == "0110010010", "grouping by 0x2803: Unsupported Group Type")
        #expect(c.ask("10 0000 ffff 0028") == "0110000001", "start 0: Invalid Handle")
        #expect(c.ask("10 0500 0400 0028") == "0110050001", "start after end: Invalid Handle")
    }

    @Test("Find By Type Value matches service UUIDs in either width, and other readable values byte for byte")
    func findByTypeValue() {
        let c = conversation()
        #expect(c.ask("06 0100 ffff 0028 0f18") == "0706000900")
        #expect(c.ask("06 0100 ffff 0028 fb349b5f80000080001000000f180000") == "0706000900", "the 128-bit form of 0x180F")
        #expect(c.ask("06 0100 ffff 0028 " + vendorService) == "070b000d00")
        #expect(c.ask("06 0100 ffff 0028 0d18") == "010601000a", "no such service: Attribute Not Found")
        #expect(c.ask("06 0200 ffff 0328 020300002a") == "0702000200", "a declaration by its bytes: group end = itself")
        #expect(c.ask("06 0100 ffff 192a 64") == "010601000a", "a value this connection may not read never matches")
        #expect(c.ask("06 0000 ffff 0028 0f18") == "0106000001")
    }

    @Test("Read By Type: declarations; the first match's refusal is the error, a later one ends the list")
    func readByType() {
        let c = conversation()
        #expect(c.ask("08 0100 ffff 0328") == "0907" + "0200020300002a" + "0400020500292a" + "0700120800192a")
        #expect(c.ask("08 0800 ffff 0328") == "0915" + "0c00080d00" + vendorControlPoint)
        #expect(c.ask("08 0100 ffff 192a") == "0108080005", "Battery Level unauthenticated: Insufficient Authentication at its handle")
        #expect(c.ask("08 0100 ffff 002a") == "0906030042616e64")
        #expect(c.ask("08 0e00 ffff 0328") == "01080e000a")
        #expect(c.ask("08 0000 0100 0328") == "0108000001")
        c.source.authenticated = true
        #expect(c.ask("08 0100 ffff 192a") == "0903080064")
    }

    @Test("Find Information lists handle–type pairs of one UUID width, paged by the MTU")
    func findInformation() {
        let c = conversation()
        // (23 − 2) / 4 = 5 pairs.
        #expect(c.ask("04 0100 ffff") == "0501" + "01000028" + "02000328" + "0300002a" + "04000328" + "0500292a")
        #expect(c.ask("04 0800 ffff") == "0501" + "0800192a" + "09000229" + "0b000028" + "0c000328")
        #expect(c.ask("04 0d00 ffff") == "0502" + "0d00" + vendorControlPoint)
        #expect(c.ask("04 0a00 0a00") == "0104" + "0a000a", "the gap: Attribute Not Found")
        #expect(c.ask("04 0e00 ffff") == "01040e000a")
        #expect(c.ask("04 0000 ffff") == "0104000001")
    }

    @Test("Read: each refusal the source gives comes back as its error, naming the handle")
    func readErrors() {
        let c = conversation()
        #expect(c.ask("0a 0300") == "0b42616e64")
        #expect(c.ask("0a 0000") == "010a000001", "handle 0: Invalid Handle")
        #expect(c.ask("0a 0a00") == "010a0a0001", "a gap: Invalid Handle")
        #expect(c.ask("0a 0e00") == "010a0e0001", "past the table: Invalid Handle")
        #expect(c.ask("0a 0d00") == "010a0d0002", "write-only control point: Read Not Permitted")
        #expect(c.ask("0a 0800") == "010a080005", "Insufficient Authentication")
        #expect(c.ask("0c 0300 0500") == "010c030007", "offset past the value: Invalid Offset")
        #expect(c.ask("0c 0d00 0000") == "010c0d0002", "Read Blob is refused like Read")
        #expect(c.ask("0c 0e00 0000") == "010c0e0001")
        // Attribute Not Long is optional ("may", §3.4.4.5); the server reads a short value at offset 0.
        #expect(c.ask("0c 0300 0000") == "0d42616e64")
        c.source.authenticated = true
        #expect(c.ask("0a 0800") == "0b64")
    }

    @Test("A 100-byte value is read whole from every offset, at ATT_MTU 23 and after an exchange", arguments: [23, 48, 0x100])
    func longReadAtEveryOffset(mtu: Int) {
        let c = conversation(mtu: mtu)
        let value = (0..<100).map { UInt8($0) }
        #expect(c.ask("0a 0500") == "0b" + Hex.encode(value.prefix(mtu - 1)))
        for offset in 0...value.count {
            let expected = "0d" + Hex.encode(value[offset..<min(value.count, offset + mtu - 1)])
            #expect(c.ask("0c 0500 " + Hex.encode([UInt8(offset & 0xFF), UInt8(offset >> 8)])) == expected, "offset \(offset)")
        }
        for offset in [101, 102, 0x100, 0xFFFF] {
            #expect(c.ask("0c 0500 " + Hex.encode([UInt8(offset & 0xFF), UInt8(offset >> 8)])) == "010c050007", "offset \(offset): Invalid Offset")
        }
        // A client's long read: Read, then Read Blob while the pieces come back full.
        var read = bytes(c.ask("0a 0500")).dropFirst()
        var piece = read.count
        while piece == mtu - 1 {
            let next = bytes(c.ask("0c 0500 " + Hex.encode([UInt8(read.count & 0xFF), UInt8(read.count >> 8)]))).dropFirst()
            piece = next.count
            read += next
        }
        #expect(Array(read) == value)
    }

    @Test("Read Multiple concatenates up to ATT_MTU − 1, fails on the first bad handle, or is not offered")
    func readMultiple() {
        let c = conversation()
        #expect(c.ask("0e 0300 0100") == "0f42616e640018")
        #expect(c.ask("0e 0300 0500") == "0f42616e64" + Hex.encode((0..<18).map { UInt8($0) }), "cut at ATT_MTU − 1")
        #expect(c.ask("0e 0300 0800 0d00") == "010e080005", "the first refusal wins")
        #expect(c.ask("0e 0300 0a00") == "010e0a0001")
        #expect(c.ask("0e 0300") == "010e000004", "one handle: Invalid PDU")
        let firmwareLike = conversation(readMultiple: false)
        #expect(firmwareLike.ask("0e 0300 0100") == "010e000006")
    }

    @Test("Write Request: stored and answered, or refused with the source's error; the effect follows")
    func writeRequests() {
        let c = conversation()
        let subscribe = c.send("12 0900 0100")
        #expect(subscribe.response == "13")
        #expect(subscribe.event == .wrote(handle: 9, effect: .stored(handle: 9, bytes: [1, 0])))
        #expect(c.ask("0a 0900") == "0b0100")
        let short = c.send("12 0900 01")
        #expect(short.response == "011209000d")
        #expect(short.event == .writeRefused(handle: 9, error: .invalidAttributeValueLength))
        #expect(c.ask("12 0300 41") == "0112030003", "read-only: Write Not Permitted")
        #expect(c.ask("12 0100 41") == "0112010003", "a declaration: Write Not Permitted")
        #expect(c.ask("12 0800 01") == "0112080005", "Insufficient Authentication")
        #expect(c.ask("12 0a00 01") == "01120a0001", "a gap: Invalid Handle")
        #expect(c.ask("12 0000 01") == "0112000001")
        #expect(c.send("12 0d00 " + String(repeating: "ab", count: 20)).event == .wrote(handle: 0x0D, effect: .stored(handle: 0x0D, bytes: Array(repeating: 0xAB, count: 20))))
    }

    @Test("Commands never get a response, not even an error; the event still says what happened")
    func commands() {
        let c = conversation()
        let accepted = c.send("52 0d00 01")
        #expect(accepted.response == "" && accepted.event == .wrote(handle: 0x0D, effect: .stored(handle: 0x0D, bytes: [1])))
        let refused = c.send("52 0300 41")
        #expect(refused.response == "" && refused.event == .writeRefused(handle: 3, error: .writeNotPermitted) && refused.error == nil)
        #expect(c.send("52 0a00 41").event == .writeRefused(handle: 0x0A, error: .invalidHandle))
        #expect(c.send("d2 0300 41 000000000000000000000000") == ("", .unexpected(.signedWriteCommand), nil))
        #expect(c.ask("7f 0102") == "", "an unknown command")
        #expect(c.ask("52 03") == "", "a malformed command is dropped")
    }

    @Test("Malformed and unsupported requests; PDUs a client must not send")
    func malformedAndUnsupported() {
        let c = conversation()
        #expect(c.ask("0a 03") == "010a000004", "truncated Read: Invalid PDU")
        #expect(c.ask("02") == "0102000004")
        #expect(c.ask("08 0100 ffff 03") == "0108000004", "a 3-byte UUID: Invalid PDU")
        #expect(c.ask("3f 0102") == "013f000006", "an unknown request: Request Not Supported")
        #expect(c.ask("16 0300 0000 41") == "0116000006", "Prepare Write: Request Not Supported, handle 0 (§3.4.1.1)")
        #expect(c.ask("18 01") == "0118000006")
        #expect(c.ask("20 0300 0500") == "0120000006", "Read Multiple Variable")
        #expect(c.send("1e") == ("", .confirmedIndication, nil))
        #expect(c.send("1b 0800 01") == ("", .unexpected(.handleValueNotification), nil))
        #expect(c.send("0b 01") == ("", .unexpected(.readResponse), nil))
        // Not decoded: a malformed one is named the same way, and still gets no answer.
        #expect(c.send("1b 08") == ("", .unexpected(.handleValueNotification), nil))
        #expect(c.send("03 01") == ("", .unexpected(.exchangeMTUResponse), nil))
        #expect(c.send("d2 03") == ("", .unexpected(.signedWriteCommand), nil))
        #expect(c.send("") == ("", .none, nil))
    }

    @Test("Every response fits the ATT_MTU, whatever the request", arguments: [23, 24, 25, 64])
    func responsesFitTheMTU(mtu: Int) {
        let c = conversation(mtu: mtu)
        for request in ["10 0100 ffff 0028", "08 0100 ffff 0328", "04 0100 ffff", "0a 0500", "0c 0500 0100", "0e 0500 0300",
                        "06 0100 ffff 0028 0f18", "08 0100 ffff 292a"] {
            #expect(c.ask(request).count / 2 <= mtu, "\(request) at MTU \(mtu)")
        }
    }
}
