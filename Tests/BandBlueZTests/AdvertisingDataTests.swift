import BandBlueZ
import BandTestSupport
import BandWire
import Testing

@Suite("AdvertisingData")
struct AdvertisingDataTests {
    /// Flags, 16-bit UUID 0x180D, the 128-bit UUID 6e400001-b5a3-f393-e0a9-e50e24dcca9e, complete name "Band".
    static let bandAdvertisement = bytes("""
        02 01 06 03 03 0d 18 11 07 9e ca dc 24 0e e5 a9 e0 93 f3 a3 b5 01 00 40 6e 05 09 42 61 6e 64
        """)
    static let customUUID = BluetoothUUID(string: "6e400001-b5a3-f393-e0a9-e50e24dcca9e")!

    @Test func decodesFlagsServiceUUIDsAndName() throws {
        let data = try AdvertisingData(parsingAll: Self.bandAdvertisement)
        #expect(data.flags == [.leGeneralDiscoverable, .brEDRNotSupported])
        #expect(data.serviceUUIDs == [BluetoothUUID(0x180D), Self.customUUID])
        #expect(data.localName == "Band")
        #expect(data.isLocalNameComplete)
        #expect(data.structures.map(\.type) == [.flags, .completeServiceUUIDs16, .completeServiceUUIDs128, .completeLocalName])
    }

    @Test func aShortenedNameNeverReplacesACompleteOne() throws {
        let data = try AdvertisingData(parsingAll: bytes("05 09 42 61 6e 64 02 08 42"))
        #expect(data.localName == "Band")
        let shortOnly = try AdvertisingData(parsingAll: bytes("02 08 42"))
        #expect(shortOnly.localName == "B")
        #expect(!shortOnly.isLocalNameComplete)
    }

    @Test func unknownTypesAreKeptVerbatim() throws {
        let data = try AdvertisingData(parsingAll: bytes("04 2a 01 02 03 03 19 c1 03"))
        #expect(data.structures == [.init(type: ADType(rawValue: 0x2A), data: [1, 2, 3]), .init(type: .appearance, data: [0xC1, 0x03])])
    }

    @Test func manufacturerDataAndTXPowerDecode() throws {
        let data = try AdvertisingData(parsingAll: bytes("05 ff 59 00 aa bb 02 0a f4"))
        #expect(data.manufacturerData?.company == 0x0059)
        #expect(data.manufacturerData?.data == [0xAA, 0xBB])
        #expect(data.txPowerLevel == -12)
    }

    @Test func aZeroLengthEndsTheSignificantPart() throws {
        let data = try AdvertisingData(parsingAll: bytes("02 01 06 00 00 00 00"))
        #expect(data.flags == [.leGeneralDiscoverable, .brEDRNotSupported])
        #expect(data.structures.count == 1)
    }

    @Test func aStructureRunningPastTheEndIsTruncatedAtItsData() {
        #expect(throws: ParseError(.truncated, at: 5, field: "AD data")) {
            try AdvertisingData(parsingAll: bytes("02 01 06 05 09 42 61"))
        }
    }

    @Test func aUUIDListWithAPartialUUIDIsAnErrorWhereThePartialOneStarts() {
        #expect(throws: ParseError(.truncated, at: 4, field: "16-bit Service UUIDs")) {
            try AdvertisingData(parsingAll: bytes("04 03 0d 18 0f"))
        }
        #expect(throws: ParseError(.truncated, at: 2, field: "128-bit Service UUIDs")) {
            try AdvertisingData(parsingAll: bytes("04 07 01 02 03"))
        }
    }

    @Test func everyCutEitherTruncatesOrEndsOnAStructureBoundary() {
        let full = Self.bandAdvertisement
        let boundaries: Set<Int> = [0, 3, 7, 25, 31]
        for length in 0..<full.count {
            let prefix = Array(full[0..<length])
            do {
                let data = try AdvertisingData(parsingAll: prefix)
                #expect(boundaries.contains(length), "prefix of \(length) bytes parsed but cuts a structure")
                #expect(data.encodedSize == length)
            } catch {
                #expect(error.kind == .truncated, "prefix of \(length) bytes: \(error)")
                #expect(!boundaries.contains(length), "prefix of \(length) bytes should have parsed")
            }
        }
    }

    @Test func theBuilderEncodesWhatTheParserReadsBack() throws {
        let built = AdvertisingData(flags: [.leGeneralDiscoverable, .brEDRNotSupported], localName: "Band",
                                    serviceUUIDs: [BluetoothUUID(0x180D), Self.customUUID])
        var out = [UInt8](repeating: 0, count: built.encodedSize)
        let written = out.withUnsafeMutableBytes { raw in
            var writer = ByteWriter(raw)
            built.encode(into: &writer)
            return writer.overflowed ? -1 : writer.count
        }
        #expect(written == 31)
        #expect(out == Self.bandAdvertisement)
        #expect(try AdvertisingData(parsingAll: out) == built)
    }

    @Test func theBandAdvertisementFitsLegacyPDUs() throws {
        let advertisement = Advertisement(name: "BandKit Band", serviceUUIDs: [BluetoothUUID(0x180D), Self.customUUID])
        let parameters = try advertisement.addAdvertisingParameters()
        // instance 1, flags: connectable, duration 0, timeout 0, adv 25 bytes, scan response 14 bytes.
        #expect(Array(parameters[0..<11]) == bytes("01 01 00 00 00 00 00 00 00 19 0e"))
        #expect(Array(parameters[11..<14]) == bytes("02 01 06"))
        #expect(Array(parameters[36...]) == [0x0D, 0x09] + Array("BandKit Band".utf8))
    }

    @Test func anAdvertisementThatDoesNotFitIsRefused() {
        let advertisement = Advertisement(name: String(repeating: "x", count: 30), serviceUUIDs: [])
        #expect(throws: EncodeError(needed: 32, capacity: 31)) { try advertisement.addAdvertisingParameters() }
    }
}
