import BandATT
import BandTestSupport
import BandWire
import Testing
@testable import BandTrace

/// Conversations of discovery PDUs (tx = the recording host as GATT client) and what the
/// discovery learns from them.
@Suite struct AttributeDiscoveryTests {
    static let band = LEAddress(BluetoothAddress(0xD542_A710_B30C), type: .random)

    final class Conversation {
        let discovery: AttributeDiscovery
        init(overrides: [UInt16: BluetoothUUID] = [:]) { discovery = AttributeDiscovery(overrides: overrides) }

        @discardableResult
        func say(_ direction: TraceDirection, _ hex: String, connection: UInt16 = 0x40, peer: LEAddress? = band) -> (UInt16?, String?) {
            let pdu = bytes(hex)
            return pdu.withUnsafeBytes { raw in
                let event = ATTTraceEvent(unixMicroseconds: 0, direction: direction, adapter: 0, connection: connection, peer: peer,
                                          pdu: raw, recordIndex: 0, recordOffset: 0)
                let layout = try! ATTPDULayout(of: raw)
                let (handle, type) = discovery.observe(event, layout: layout)
                return (handle, type?.description)
            }
        }
    }

    /// The Heart Rate part of the synthetic band's discovery.
    func discoverHeartRate(_ c: Conversation, connection: UInt16 = 0x40, peer: LEAddress? = band) {
        c.say(.tx, "10 01 00 ff ff 00 28", connection: connection, peer: peer)
        c.say(.rx, "11 06 10 00 17 00 0d 18", connection: connection, peer: peer)
        c.say(.tx, "08 10 00 17 00 03 28", connection: connection, peer: peer)
        c.say(.rx, "09 07 11 00 10 12 00 37 2a 14 00 02 15 00 38 2a", connection: connection, peer: peer)
        c.say(.tx, "04 13 00 13 00", connection: connection, peer: peer)
        c.say(.rx, "05 01 13 00 02 29", connection: connection, peer: peer)
    }

    @Test func learnsServicesDeclarationsValuesAndDescriptors() throws {
        let c = Conversation()
        discoverHeartRate(c)
        let table = try #require(c.discovery.table(for: Self.band))
        #expect(table.entries.map { "\($0.handle):\($0.type)" } == ["16:2800", "17:2803", "18:2a37", "19:2902", "20:2803", "21:2a38"])
        #expect(c.say(.rx, "1b 12 00 06 52") == (0x12, "2a37"))
    }

    @Test func responsesTakeTheirHandleFromTheRequest() {
        let c = Conversation()
        discoverHeartRate(c)
        #expect(c.say(.tx, "0a 15 00") == (0x15, "2a38"))
        #expect(c.say(.rx, "0b 01") == (0x15, "2a38"))
        #expect(c.say(.tx, "12 13 00 01 00") == (0x13, "2902"))
        #expect(c.say(.rx, "13") == (0x13, "2902"))
        // An error response names its own handle; the transaction is closed either way.
        #expect(c.say(.tx, "0a 99 00") == (0x99, nil))
        #expect(c.say(.rx, "01 0a 99 00 02") == (0x99, nil))
        #expect(c.say(.rx, "0b 00") == (nil, nil))
    }

    @Test func confirmationTakesTheIndicationsHandle() {
        let c = Conversation()
        #expect(c.say(.rx, "1d 05 00 01 00 ff ff") == (0x05, nil))
        #expect(c.say(.tx, "1e") == (0x05, nil))
    }

    @Test func oneHundredTwentyEightBitCharacteristicIsLearned() {
        let c = Conversation()
        c.say(.tx, "08 40 00 ff ff 03 28")
        c.say(.rx, "09 15 41 00 10 42 00 9e ca dc 24 0e e5 a9 e0 93 f3 a3 b5 03 00 40 6e")
        #expect(c.say(.rx, "1b 42 00 ca fe") == (0x42, "6e400003-b5a3-f393-e0a9-e50e24dcca9e"))
    }

    @Test func tablesArePerPeerSoTwoDevicesCanShareHandleNumbers() {
        let c = Conversation()
        let footPod = LEAddress(BluetoothAddress(0xE1_00_00_00_00_01), type: .random)
        discoverHeartRate(c, connection: 0x40, peer: Self.band)
        c.say(.tx, "08 10 00 17 00 03 28", connection: 0x41, peer: footPod)
        c.say(.rx, "09 07 11 00 10 12 00 53 2a", connection: 0x41, peer: footPod)
        #expect(c.say(.rx, "1b 12 00 06 52", connection: 0x40, peer: Self.band) == (0x12, "2a37"))
        #expect(c.say(.rx, "1b 12 00 00 00 00 00", connection: 0x41, peer: footPod) == (0x12, "2a53"))
    }

    @Test func reconnectionToTheSamePeerWithoutDiscoveryStillResolves() {
        let c = Conversation()
        discoverHeartRate(c, connection: 0x40)
        c.discovery.connectionClosed(adapter: 0, connection: 0x40)
        #expect(c.say(.rx, "1b 12 00 06 52", connection: 0x41) == (0x12, "2a37"))
    }

    @Test func tableOfAnUnknownPeerIsForgottenOnDisconnect() {
        let c = Conversation()
        discoverHeartRate(c, connection: 0x40, peer: nil)
        #expect(c.say(.rx, "1b 12 00 06 52", peer: nil) == (0x12, "2a37"))
        c.discovery.connectionClosed(adapter: 0, connection: 0x40)
        #expect(c.say(.rx, "1b 12 00 06 52", peer: nil) == (0x12, nil))
    }

    @Test func overridesWinOverDiscovery() {
        let c = Conversation(overrides: [0x12: BluetoothUUID(0x2A53), 0x29: BluetoothUUID(0x2A37)])
        discoverHeartRate(c)
        #expect(c.say(.rx, "1b 12 00 00 00 00 00") == (0x12, "2a53"))
        #expect(c.say(.rx, "1b 29 00 06 52", connection: 0x77, peer: nil) == (0x29, "2a37"))
    }

    @Test func responseInTheSameDirectionAsTheRequestDoesNotAnswerIt() {
        // The recording host is the server here: the peer (rx) asks, the host (tx) answers.
        let c = Conversation()
        c.say(.rx, "08 01 00 ff ff 03 28")
        c.say(.tx, "09 07 02 00 02 03 00 00 2a")
        #expect(c.say(.tx, "1b 03 00 41") == (0x03, "2a00"))
    }
}
