import BandATT
import BandTestSupport
import BandWire
import Testing
@testable import BandTrace

@Suite struct ATTPDULayoutTests {
    func layout(_ hex: String) throws(ParseError) -> ATTPDULayout {
        let pdu = bytes(hex)
        let result: Result<ATTPDULayout, ParseError> = pdu.withUnsafeBytes { raw in
            do throws(ParseError) { return .success(try ATTPDULayout(of: raw)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// (PDU, handle tshark reports first in btatt.handle, value range) for every opcode family.
    static let cases: [(String, UInt16?, Range<Int>?)] = [
        ("1b 12 00 06 52", 0x0012, 3..<5),     // notification
        ("1d 05 00 02 00 01", 0x0005, 3..<6),                         // indication
        ("52 29 00 01", 0x0029, 3..<4),                               // write command
        ("12 13 00 01 00", 0x0013, 3..<5),                            // write request
        ("d2 29 00 01 00 00 00 00 00 00 00 00 00 00 00 00", 0x0029, 3..<4),  // signed write: 12-byte signature
        ("0a 03 00", 0x0003, nil),                                     // read request
        ("0c 03 00 16 00", 0x0003, nil),                               // read blob request
        ("16 17 00 00 00 01", 0x0017, nil),                            // prepare write request
        ("01 10 44 00 0a", 0x0044, nil),                               // error response: handle in error
        ("05 01 13 00 02 29", 0x0013, nil),                            // find information response
        ("09 07 02 00 02 03 00 00 2a", 0x0002, nil),                   // read by type response
        ("11 06 01 00 07 00 00 18", 0x0001, nil),                      // read by group type response
        ("0b 57", nil, 1..<2),                                         // read response: handle from the request
        ("13", nil, nil),                                              // write response: handle from the request
        ("10 01 00 ff ff 00 28", nil, nil),                            // read by group type request
        ("02 f7 00", nil, nil),                                        // exchange MTU
        ("ff 01 02", nil, nil),                                        // unknown opcode: kept, nothing located
        ]

    @Test(arguments: cases)
    func locatesHandleAndValueLikeWireshark(hex: String, handle: UInt16?, value: Range<Int>?) throws {
        let found = try layout(hex)
        #expect(found.handle == handle)
        #expect(found.value == value)
        #expect(found.opcode.rawValue == bytes(hex)[0])
    }

    @Test func emptyPDUHasNoOpcode() {
        #expect(throws: ParseError(.truncated, at: 0, field: "opcode")) { try layout("") }
    }

    @Test func notificationWithoutAFullHandleIsTruncatedAtTheHandle() {
        #expect(throws: ParseError(.truncated, at: 1, field: "attribute handle")) { try layout("1b 12") }
    }

    @Test func malformedDiscoveryResponseIsReportedByBandATT() throws {
        // Read By Type Response whose pairs are 7 bytes but whose list holds 5.
        #expect(throws: ParseError.self) { try layout("09 07 02 00 02 03 00") }
    }

    @Test func signedWriteShorterThanItsSignatureIsTruncated() {
        #expect(throws: ParseError(.truncated, at: 10, field: "authentication signature")) { try layout("d2 29 00 01 02 03 04 05 06 07") }
    }
}
