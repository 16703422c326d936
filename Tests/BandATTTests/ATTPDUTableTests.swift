import BandATT
import BandTestSupport
import BandWire
import Testing

/// Every opcode 0x00-0xFF through the table: what each row says about its PDU type.
struct TableRow: ATTPDUTableVisitor {
    typealias Failure = Never
    struct Row {
        var entry: ATTPDUEntry
        /// The opcode the row's PDU type declares.
        var typeOpcode: ATTOpcode
    }

    func visit<PDU: ATTPDUType>(_ entry: ATTPDUEntry, _ type: PDU.Type, wrap: (PDU) -> ATTPDU) -> Row? {
        Row(entry: entry, typeOpcode: PDU.opcode)
    }

    func visitUnknown(_ opcode: ATTOpcode) -> Row? { nil }

    static func row(_ raw: UInt8) -> Row? {
        var visitor = TableRow()
        return ATTPDUTable.visit(ATTOpcode(rawValue: raw), &visitor)
    }
}

@Suite struct ATTPDUTableTests {
    @Test func theTableHasTheThirtyOneOpcodesOfCoreTable3_37AndEachRowItsOwnType() {
        var rows = 0
        for raw in UInt8.min...UInt8.max {
            guard let row = TableRow.row(raw) else {
                #expect(ATTOpcode(rawValue: raw).entry == nil)
                continue
            }
            rows += 1
            #expect(row.entry.opcode.rawValue == raw)
            #expect(row.typeOpcode.rawValue == raw, "row 0x\(String(raw, radix: 16)) holds the PDU type of \(row.typeOpcode)")
            #expect(ATTOpcode(rawValue: raw).name == row.entry.name)
        }
        #expect(rows == 31)
    }

    @Test func requestsAndResponsesPointAtEachOtherAndDirectionsFollowTheKind() {
        for raw in UInt8.min...UInt8.max {
            let opcode = ATTOpcode(rawValue: raw)
            guard let entry = opcode.entry else { continue }
            switch entry.kind {
            case .request(let response):
                #expect(response.kind == .response(request: opcode), "\(opcode)")
                #expect(entry.direction == .clientToServer && !opcode.isCommand)
            case .response(let request):
                #expect(request.kind == .request(response: opcode), "\(opcode)")
                #expect(entry.direction == .serverToClient)
            case .command:
                // §3.3.1: bit 6 marks a command.
                #expect(opcode.isCommand && entry.direction == .clientToServer, "\(opcode)")
            case .confirmation:
                #expect(entry.direction == .clientToServer)
            case .errorResponse, .notification, .indication:
                #expect(entry.direction == .serverToClient && !opcode.isCommand, "\(opcode)")
            }
        }
    }

    @Test func everyRowDecodesItsOpcodeIntoTheCaseOfItsType() throws {
        // A PDU of each row's type, encoded, decodes through the table into a PDU whose opcode is
        // the row's: the parse entry and the case agree.
        for raw in UInt8.min...UInt8.max {
            guard let entry = ATTOpcode(rawValue: raw).entry else {
                let pdu = try decodePDU([raw, 0x01, 0x02])
                guard case .unknown(let opcode, let parameters) = pdu else {
                    Issue.record("0x\(String(raw, radix: 16)) decoded as \(pdu.opcode)")
                    continue
                }
                #expect(opcode.rawValue == raw && parameters.count == 2)
                #expect(encoded(pdu) == [raw, 0x01, 0x02])
                continue
            }
            var bytes = [raw]
            bytes += Self.minimalParameters[raw] ?? []
            let pdu = try decodePDU(bytes)
            #expect(pdu.opcode == entry.opcode, "\(entry.opcode)")
            #expect(encoded(pdu) == bytes, "\(entry.opcode)")
        }
    }

    /// The shortest valid parameters of each PDU that has required fields.
    static let minimalParameters: [UInt8: [UInt8]] = [
        0x01: [0x0A, 0x01, 0x00, 0x0A],             // Error Response: Read Request, handle 1, Invalid Handle
        0x02: [0x17, 0x00], 0x03: [0x17, 0x00],     // Exchange MTU: 23
        0x04: [0x01, 0x00, 0xFF, 0xFF],             // Find Information 0x0001-0xFFFF
        0x05: [0x01, 0x01, 0x00, 0x00, 0x28],       // format 1: handle 1, 0x2800
        0x06: [0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28],
        0x07: [0x01, 0x00, 0x05, 0x00],
        0x08: [0x01, 0x00, 0xFF, 0xFF, 0x03, 0x28],
        0x09: [0x03, 0x02, 0x00, 0x07],
        0x0A: [0x03, 0x00], 0x0C: [0x03, 0x00, 0x00, 0x00],
        0x0E: [0x03, 0x00, 0x05, 0x00],
        0x10: [0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28],
        0x11: [0x06, 0x01, 0x00, 0x05, 0x00, 0x00, 0x18],
        0x12: [0x03, 0x00, 0x01], 0x52: [0x03, 0x00, 0x01],
        0x16: [0x03, 0x00, 0x00, 0x00], 0x17: [0x03, 0x00, 0x00, 0x00],
        0x18: [0x01],
        0x1B: [0x03, 0x00, 0x48], 0x1D: [0x03, 0x00, 0x48],
        0x20: [0x03, 0x00, 0x05, 0x00],
        0x23: [0x03, 0x00, 0x01, 0x00, 0x48],
        0xD2: [0x03, 0x00] + Array(repeating: 0, count: 12),
    ]
}
