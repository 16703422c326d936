import BandATT
import BandTestSupport
import BandWire
import Testing

/// `ATTPDU(clientPDU:)`, what a GATT server parses with: a client's PDU decodes exactly as
/// through the full dispatch; a PDU only a server sends, and a signed write, is not decoded at all.
@Suite struct ATTClientPDUTests {
    static func clientPDU(_ input: [UInt8]) throws(ParseError) -> ATTPDU {
        let result: Result<ATTPDU, ParseError> = input.withUnsafeBytes { raw in
            do throws(ParseError) { return .success(try ATTPDU(clientPDU: raw)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    @Test func everyVectorOfAClientPDUDecodesAsTheFullDispatchDoesAndNoOtherIsDecoded() throws {
        for type in ATTMalformedPDUTests.allTypes {
            let vector = ATTMalformedPDUTests.vector(for: type)
            let entry = try #require(ATTPDUTable.entry(type.opcode))
            let decoded = entry.direction == .clientToServer && type.opcode != .signedWriteCommand
            #expect(ATTPDU.isDecodedByServer(type.opcode) == decoded, "\(type)")
            if decoded {
                #expect(try Self.clientPDU(vector) == decodePDU(vector), "\(type)")
            } else {
                #expect(throws: ParseError.self, "\(type)") { try Self.clientPDU(vector) }
            }
        }
    }

    @Test func serverPDUsAreNotDecodedWhateverTheirLayoutAndAMalformedRequestStillFails() throws {
        #expect(!ATTPDU.isDecodedByServer(.handleValueNotification) && !ATTPDU.isDecodedByServer(.readResponse))
        #expect(!ATTPDU.isDecodedByServer(.signedWriteCommand))
        #expect(ATTPDU.isDecodedByServer(.readRequest) && ATTPDU.isDecodedByServer(.handleValueConfirmation))
        #expect(ATTPDU.isDecodedByServer(ATTOpcode(rawValue: 0x3F)), "an opcode without a model is the server's to refuse")
        #expect(throws: ParseError.self) { try Self.clientPDU([0x0A, 0x03]) }
        #expect(throws: ParseError.self) { try Self.clientPDU([0x1E, 0x00]) }
        #expect(throws: ParseError.self) { try Self.clientPDU([]) }
        #expect(try Self.clientPDU([0x3F, 0x01, 0x02]) == decodePDU([0x3F, 0x01, 0x02]), "an opcode without a model")
    }
}
