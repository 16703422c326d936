import ChipRuntime
import FirmwareCrypto
import Foundation
import Testing
import UARTFraming

@Suite("Firmware core on a scripted board: UART frames, ATT, link and debug messages")
struct FirmwareRuntimeTests {
    @Test("Start-up announces the firmware on the link channel")
    func booted() {
        var c = FirmwareConversation()
        let frames = c.takeFrames()
        #expect(frames == [Frame(channel: 2, payload: [0x80]), Frame(channel: 3, payload: [0x86, 1, 0, 0, 0, 0, 0, 0, 0] + [UInt8](repeating: 0, count: 16))])
    }

    @Test("ATT conversation through the shared GATT server: MTU, discovery, reads, errors, CCCD")
    func attConversation() {
        var c = FirmwareConversation()
        _ = c.takeFrames()
        c.exchange("02 0002", "03 f700")
        c.exchange("10 0100 ffff 0028", "11 06 0100 0300 0018 0400 0800 0a18 0900 0c00 0f18")
        c.exchange("08 0100 ffff 0328", "09 07 0200 02 0300 002a 0500 02 0600 292a 0700 02 0800 242a 0a00 12 0b00 192a")
        c.exchange("0a 0300", "0b 42616e644b6974204d34")   // "BandKit M4"
        c.exchange("0a 0b00", "0b 57")
        c.exchange("0a 0001", "01 0a 0001 01")
        c.exchange("12 0300 4142", "01 12 0300 03")
        c.exchange("12 0c00 01", "01 12 0c00 0d")
        c.exchange("12 0c00 0100", "13")
        c.exchange("0a 0c00", "0b 0100")
        c.exchange("3f", "01 3f 0000 06")   // unknown request: Request Not Supported
        c.expectReply(.att, [0xff], [])          // unknown command (bit 6): no response
        // A reconnect starts the ATT state afresh: the CCCD is off again.
        c.expectReply(.link, [0x02], [])
        c.exchange("0a 0c00", "0b 0000")
    }

    @Test("Seeded by the host, the DRBG gives SP 800-90A's bytes; unseeded or oversized requests get 0xFF")
    func seededRandom() throws {
        var c = FirmwareConversation()
        _ = c.takeFrames()
        c.expectReply(.link, [0x05, 16], [Frame(channel: 3, payload: [0x82, 0xFF])])
        let entropy = (0..<32).map { UInt8($0) }, nonce = (100..<116).map { UInt8($0) }
        c.expectReply(.link, [0x01] + entropy + nonce, [])
        var expected = try entropy.withUnsafeBytes { e in try nonce.withUnsafeBytes { n in try HMACDRBG(entropy: e, nonce: n) } }
        var bytes = [UInt8](repeating: 0, count: 40)
        try bytes.withUnsafeMutableBytes { try expected.generate(into: $0) }
        c.expectReply(.link, [0x05, 40], [Frame(channel: 3, payload: [0x82] + bytes)])
        c.expectReply(.link, [0x05, 65], [Frame(channel: 3, payload: [0x82, 0xFF])])
        c.expectReply(.link, [0x05, 0], [Frame(channel: 3, payload: [0x82, 0xFF])])
        // A seed of the wrong length is refused with a log line, and the old DRBG stays.
        c.expectReply(.link, [0x01, 1, 2, 3], [Frame(channel: 3, payload: [0x84] + Array("seed: not 48 bytes".utf8))])
    }

    @Test("On-chip known-answer tests pass (bitmask 7)")
    func selfTest() {
        var c = FirmwareConversation()
        _ = c.takeFrames()
        c.expectReply(.link, [0x06], [Frame(channel: 3, payload: [0x83, 0x07])])
    }

    @Test("Garbage is skipped and counted; the status message reports counters, allocations and stack")
    func garbageAndStatus() throws {
        var c = FirmwareConversation()
        _ = c.takeFrames()
        c.firmware.board.now = 90_061
        var state: UInt64 = 7
        let garbage: [UInt8] = (0..<5000).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let byte = UInt8(truncatingIfNeeded: state >> 56)
            return byte & 3 == 0 ? 0xA5 : byte
        }
        _ = c.sendRaw(garbage + [UInt8](repeating: 0, count: 600))
        c.exchange("0a 0300", "0b 42616e644b6974204d34")
        c.firmware.board.allocations = 5   // two allocations after start-up
        let reply = c.send(.link, [0x04])
        #expect(reply.count == 1 && reply.first?.channel == 3 && reply.first?.payload.first == 0x81)
        let status = try #require(reply.first.flatMap { frame in Array(frame.payload.dropFirst()).withUnsafeBytes { FirmwareStatus(parsing: $0) } })
        #expect(status.uptimeMilliseconds == 90_061)
        #expect(status.discardedBytes > 4000)
        #expect(status.attPDUs == 1)
        #expect(status.frames == 2)   // the ATT request and the status request itself; nothing from the garbage
        #expect(status.heapAllocations == 5 && status.heapAllocationsAfterStartUp == 2)
        #expect(status.stackHighWaterBytes == 1234)
    }

    @Test("Status message: 40 bytes, round trip, other lengths refused")
    func statusRoundTrip() {
        var status = FirmwareStatus()
        status.uptimeMilliseconds = 0x0102_0304_0506_0708; status.frames = 1; status.discardedBytes = 2
        status.headerCheckFailures = 3; status.crcFailures = 4; status.attPDUs = 5; status.heapAllocations = 6
        status.heapAllocationsAfterStartUp = 7; status.stackHighWaterBytes = 0xA0B0C0D0
        var bytes = [UInt8](repeating: 0, count: FirmwareStatus.byteCount)
        bytes.withUnsafeMutableBytes { status.encode(into: $0) }
        #expect(bytes.prefix(8) == [8, 7, 6, 5, 4, 3, 2, 1])
        #expect(bytes.suffix(4) == [0xD0, 0xC0, 0xB0, 0xA0])
        #expect(bytes.withUnsafeBytes { FirmwareStatus(parsing: $0) } == status)
        #expect(bytes.dropLast().withUnsafeBytes { FirmwareStatus(parsing: $0) } == nil)
    }

    @Test("The bench message times five operations and reports cycles per operation")
    func bench() {
        var c = FirmwareConversation()
        _ = c.takeFrames()
        let hundred: [UInt8] = [100, 0, 0, 0]
        c.expectReply(.link, [0x07], [Frame(channel: 3, payload: [0x85] + Array([[UInt8]](repeating: hundred, count: 5).joined()))])
    }

    @Test("The speed message sets the band clock's factor; 0, over 3600 or a wrong length is logged and ignored")
    func speed() {
        var c = FirmwareConversation()
        _ = c.takeFrames()
        c.expectReply(.link, [0x09, 0x10, 0x0E], [])   // 3600
        #expect(c.firmware.board.speed == 3600)
        let refused = Frame(channel: 3, payload: [0x84] + Array("speed: not 1...3600".utf8))
        for body: [UInt8] in [[0x11, 0x0E], [0, 0], [60], [60, 0, 0]] {
            c.expectReply(.link, [0x09] + body, [refused])
        }
        #expect(c.firmware.board.speed == 3600)
        c.expectReply(.link, [0x09, 1, 0], [])
        #expect(c.firmware.board.speed == 1)
    }

    @Test("The fault message reaches the board's fault hook; unknown link messages are logged")
    func faultAndUnknown() {
        var c = FirmwareConversation()
        _ = c.takeFrames()
        _ = c.send(.link, [0x7F])
        #expect(c.firmware.board.faults == 1)
        c.expectReply(.link, [0x55], [Frame(channel: 3, payload: [0x84] + Array("link: unknown message".utf8))])
        c.expectReply(.debug, [0x01], [])
    }
}
