import BandWire
import SocketSecurity
import Testing

/// Every security message round-trips through its envelope; broken ones are refused with the
/// byte offset, at every truncation.
@Suite struct SocketSecurityPDUTests {
    static let key = (0..<16).map { UInt8($0) }
    static let all: [SocketSecurityPDU] = [
        .pairingRequest(PairingFeatures(ioCapability: .keyboardOnly)),
        .pairingResponse(PairingFeatures(ioCapability: .displayOnly, oobDataPresent: true, authenticationRequirements: 0x05,
                                         maximumKeySize: 7, initiatorKeyDistribution: 0, responderKeyDistribution: 1)),
        .pairingConfirm(key), .pairingRandom(key.reversed()),
        .pairingFailed(.confirmValueFailed), .pairingFailed(PairingFailedReason(rawValue: 0x7E)),
        .encryptionInformation(longTermKey: key),
        .centralIdentification(ediv: 0xBEEF, rand: 0x0123_4567_89AB_CDEF),
        .startEncryption(ediv: 1, rand: 2, sessionDiversifier: [1, 2, 3, 4, 5, 6, 7, 8]),
        .encryptionStarted(sessionDiversifier: [8, 7, 6, 5, 4, 3, 2, 1], proof: Array(key.prefix(8))),
        .encryptionRejected(errorCode: SocketSecurityPDU.keyMissing),
    ]

    @Test(arguments: all)
    func roundTrip(_ pdu: SocketSecurityPDU) throws {
        let envelope = pdu.envelope
        #expect(envelope.first == 0x3F)
        #expect(envelope.count <= 23, "fits the socket link's starting ATT_MTU")
        #expect(try SocketSecurityPDU(envelope: envelope) == pdu)
        for length in 0..<envelope.count {
            #expect(throws: ParseError.self, "cut to \(length)") { try SocketSecurityPDU(envelope: Array(envelope.prefix(length))) }
        }
        #expect(throws: ParseError(.trailingBytes, at: envelope.count, field: "security message")) {
            try SocketSecurityPDU(envelope: envelope + [0])
        }
    }

    @Test func theLayoutIsSMPs() {
        #expect(SocketSecurityPDU.pairingRequest(PairingFeatures(ioCapability: .keyboardOnly)).envelope == [0x3F, 0x01, 0x02, 0x00, 0x05, 0x10, 0x00, 0x01])
        #expect(SocketSecurityPDU.centralIdentification(ediv: 0x1234, rand: 0x0102030405060708).envelope
                == [0x3F, 0x07, 0x34, 0x12, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01])
    }

    @Test func brokenMessagesNameTheByte() {
        #expect(throws: ParseError(.invalidValue, at: 0, field: "envelope opcode")) { try SocketSecurityPDU(envelope: [0x01, 0x3F]) }
        #expect(throws: ParseError(.unsupported, at: 1, field: "security code")) { try SocketSecurityPDU(envelope: [0x3F, 0x0B, 0x05]) }
        #expect(throws: ParseError(.invalidValue, at: 3, field: "OOB data flag")) {
            try SocketSecurityPDU(envelope: [0x3F, 0x01, 0x02, 0x02, 0x05, 0x10, 0x00, 0x01])
        }
        #expect(throws: ParseError(.invalidValue, at: 5, field: "maximum encryption key size")) {
            try SocketSecurityPDU(envelope: [0x3F, 0x02, 0x00, 0x00, 0x05, 0x06, 0x00, 0x01])
        }
    }

    @Test func theMethodFollowsSMPsTable() {
        func method(_ i: IOCapability, _ r: IOCapability, mitm: Bool = true) -> PairingMethod {
            let auth: UInt8 = mitm ? 0x05 : 0x01
            return PairingMethod.select(initiator: PairingFeatures(ioCapability: i, authenticationRequirements: auth),
                                        responder: PairingFeatures(ioCapability: r, authenticationRequirements: auth))
        }
        #expect(method(.keyboardOnly, .displayOnly) == .initiatorEntersPasskey)
        #expect(method(.keyboardOnly, .displayOnly, mitm: false) == .justWorks)
        #expect(method(.noInputNoOutput, .displayOnly) == .justWorks)
        #expect(method(.keyboardOnly, .noInputNoOutput) == .justWorks)
        #expect(method(.keyboardOnly, .keyboardOnly) == .bothEnterPasskey)
        #expect(method(.displayOnly, .keyboardOnly) == .responderEntersPasskey)
        #expect(method(.displayOnly, .displayYesNo) == .justWorks)
    }
}
