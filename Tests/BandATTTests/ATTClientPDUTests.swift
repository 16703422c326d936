import BandATT
import BandTestSupport
import BandWire
import Testing

/// `ATTPDU(clientPDU:)`, what a GATT server parses with: a client's PDU decodes exactly as
/// through the full dispatch; a PDU only a server sends, and a signed write, is not decoded at all.
@Suite struct ATTClientPDUTests {
    static func clientPDU(_ input: [UInt8]) throws(ParseError) -> ATTPDU? {
        let result: Result<ATTPDU?, ParseError> = input.withUnsafeBytes { raw in
            do throws(ParseError) { return .success(try ATTPDU(clientPDU: raw)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    @Test func everyVectorOfAClientPDUDecodesAsTheFullDispatchDoesAndNoOtherIsDecoded() throws {
        for type in ATTMalformedPDUTests.allTypes {
            let vector = ATTMalformedPDUTests.vector(for: type)
            let entry = try #require(ATTPDUTable.entry(type.opcode))
            let decoded = try Self.clientPDU(vector)
            if entry.direction == .clientToServer, type.opcode != .signedWriteCommand {
                #expect(try decoded == decodePDU(vector), "\(type)")
            } else {
                #expect(decoded == nil, "\(type)")
            }
        }
    }

    @Test func aMalformedServerPDUIsNotDecodedAndAMalformedRequestStillFails() throws {
        #expect(try Self.clientPDU([0x1B, 0x08]) == nil, "a notification cut inside its handle")
        #expect(try Self.clientPDU([0x0B] + [UInt8](repeating: 0, count: 600)) == nil, "a Read Response longer than any value")
        #expect(try Self.clientPDU([0xD2, 0x03]) == nil, "a signed write cut short")
        #expect(throws: ParseError.self) { try Self.clientPDU([0x0A, 0x03]) }
        #expect(throws: ParseError.self) { try Self.clientPDU([0x1E, 0x00]) }
        #expect(throws: ParseError.self) { try Self.clientPDU([]) }
        #expect(try Self.clientPDU([0x3F, 0x01, 0x02]) == decodePDU([0x3F, 0x01, 0x02]), "an opcode without a model")
    }
}
