import BandHCI
import BandTestSupport
import BandWire
import Testing

/// The commands, return parameters and events the band's own host uses: exact bytes, exact
/// re-encoding, and a truncation error at every shorter length.
@Suite struct HostCommandPacketTests {
    func roundTrip<T: WireCodable & Equatable>(_ vector: [UInt8], as type: T.Type) throws -> T {
        let value = try parse(vector) { (c) throws(ParseError) in try T(parsing: &c) }
        #expect(value.encodedBytes() == vector)
        #expect(prefixesThatDidNotTruncate(vector) { (c) throws(ParseError) in try T(parsing: &c) } == [])
        return value
    }

    func command<C: HCICommandParameters>(_ parameters: C) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 300)
        let n = out.withUnsafeMutableBytes { raw in
            var writer = ByteWriter(raw)
            parameters.encodeCommand(into: &writer)
            return writer.count
        }
        return Array(out.prefix(n))
    }

    @Test func commandsCarryTheirOpcodeAndLength() throws {
        #expect(command(HCIParameterlessCommand(.reset)) == bytes("01 03 0c 00"))
        #expect(command(HCIEventMask.peripheral) == bytes("01 01 0c 08 90 80 00 02 00 80 00 20"))
        #expect(command(HCIEventMask.lePeripheral) == bytes("01 01 20 08 d5 03 00 00 00 00 00 00"))
        #expect(command(LESetAdvertisingParameters()) == bytes("01 06 20 0f a0 00 a0 00 00 00 00 00 00 00 00 00 00 07 00"))
        #expect(command(LESetAdvertisingEnable(true)) == bytes("01 0a 20 01 01"))
        #expect(command(LELongTermKeyRequestReply(handle: 0x40, longTermKey: nil)) == bytes("01 1b 20 02 40 00"))
        let key = FixedBytes<16>(Array(0..<16))
        #expect(command(LELongTermKeyRequestReply(handle: 0x40, longTermKey: key)) == bytes("01 1a 20 12 40 00") + Array(0..<16))
        let payload = LEAdvertisingPayloadCommand(opcode: .leSetScanResponseData, payload: FixedBytes(bytes("05 09 42 61 6e 64")))
        #expect(command(payload) == bytes("01 09 20 20 06 05 09 42 61 6e 64") + [UInt8](repeating: 0, count: 25))
        #expect(command(LEGenerateDHKey(remotePublicKey: FixedBytes(Array(0..<64)))).prefix(4) == bytes("01 26 20 40")[...])
    }

    @Test func returnParametersAndEvents() throws {
        let version = try roundTrip(bytes("0d 00 00 0d 5f 00 01 00"), as: LocalVersionInformation.self)
        #expect(version.hciVersion == 0x0D && version.companyIdentifier == 0x5F && version.linkLayerSubversion == 1)
        let v1 = try roundTrip(bytes("1b 00 03"), as: LEBufferSize.self)
        #expect(v1.aclDataPacketLength == 27 && v1.aclDataPacketCount == 3 && v1.isoDataPacketLength == nil)
        let v2 = try parse(bytes("fb 00 08 00 00 00")) { (c) throws(ParseError) in try LEBufferSize(parsing: &c) }
        #expect(v2.isoDataPacketLength == 0 && v2.encodedBytes() == bytes("fb 00 08 00 00 00"))
        let completed = try roundTrip(bytes("02 40 00 41 00 03 00 01 00"), as: NumberOfCompletedPackets.self)
        #expect(completed.count == 2 && completed[0].handle == 0x40 && completed[0].completed == 3 && completed[1].completed == 1)
        let request = try roundTrip(bytes("05 40 00 88 77 66 55 44 33 22 11 34 12"), as: LELongTermKeyRequest.self)
        #expect(request.handle == 0x40 && request.randomNumber == 0x1122_3344_5566_7788 && request.encryptedDiversifier == 0x1234)
        let change = try roundTrip(bytes("00 40 00 01"), as: EncryptionChange.self)
        #expect(change.status == .success && change.enabled == 1)
        let parameters = try roundTrip(bytes("20 00 40 00 00 01 00 66 55 44 33 22 11 07 00"), as: LESetAdvertisingParameters.self)
        #expect(parameters.intervalMin == 32 && parameters.ownAddressType == 1 && parameters.channelMap == 7)
        _ = try roundTrip(bytes("10 00 00 00 00 00 00 00"), as: HCIEventMask.self)
        let dhKey = try roundTrip(bytes("09 00") + Array(0..<32), as: LESecureConnectionsKeyEvent.self)
        #expect(dhKey.subevent == .generateDHKeyComplete && dhKey.key.count == 32)
        let publicKey = try roundTrip(bytes("08 12") + Array(0..<64), as: LESecureConnectionsKeyEvent.self)
        #expect(publicKey.status == .invalidParameters && publicKey.key.count == 64)
    }

    @Test func valuesOutOfRangeAreRefusedWhereTheyStand() {
        #expect(throws: ParseError(.unsupported, at: 0, field: "number of handles")) {
            try parse(bytes("09") + [UInt8](repeating: 0, count: 36)) { (c) throws(ParseError) in try NumberOfCompletedPackets(parsing: &c) }
        }
        #expect(throws: ParseError(.invalidValue, at: 0, field: "advertising enable")) {
            try parse(bytes("02")) { (c) throws(ParseError) in try LESetAdvertisingEnable(parsing: &c) }
        }
        #expect(throws: ParseError(.invalidValue, at: 0, field: "LE subevent code")) {
            try parse(bytes("0a 00")) { (c) throws(ParseError) in try LESecureConnectionsKeyEvent(parsing: &c) }
        }
    }
}
