import BandATT
import BandTestSupport
import BandWire
import Testing

/// Every ATT PDU of the real band captures in /work/shared/captures must decode and
/// re-encode byte for byte. The PDU counts are tshark 4.0's (`-Y "btl2cap.cid == 4"`).
@Suite struct RealCaptureTests {
    @Test(arguments: [("miband2_ec521_btsnoop_hci.log", 136), ("dsd6_btsnoop_hci_3.log", 261)])
    func everyATTPDUDecodesAndReencodesExactly(capture: String, tsharkCount: Int) throws {
        guard let file = SharedCaptures.load(capture) else {
            print("skipping: \(SharedCaptures.path(capture)) is absent")
            return
        }
        let pdus = try SharedCaptures.singleFragmentATTPDUs(in: file)
        #expect(pdus.count == tsharkCount)
        var unknown = 0
        for pdu in pdus {
            let decoded = try decodePDU(pdu)
            if case .unknown = decoded { unknown += 1 }
            #expect(encoded(decoded) == pdu, "\(Hex.encode(pdu))")
        }
        #expect(unknown == 0)
    }

    @Test func miBandDiscoveryEndsEachPhaseWithAttributeNotFound() throws {
        guard let file = SharedCaptures.load("miband2_ec521_btsnoop_hci.log") else {
            print("skipping: Mi Band capture is absent")
            return
        }
        let errors = try SharedCaptures.singleFragmentATTPDUs(in: file).compactMap { pdu -> ATTErrorResponse? in
            guard case .errorResponse(let error) = try decodePDU(pdu) else { return nil }
            return error
        }
        #expect(errors.count == 19)
        #expect(errors.allSatisfy { $0.error == .attributeNotFound })
        #expect(Set(errors.map(\.requestOpcode)) == [.readByTypeRequest, .readByGroupTypeRequest])
    }
}
