import Testing
import UARTFraming

/// Frames `payload` on `channel` (the encoder under test).
private func frame(_ channel: UARTChannel, _ payload: [UInt8]) -> [UInt8] {
    var output = [UInt8](repeating: 0, count: UARTFrame.maximumFrameByteCount)
    let written = payload.withUnsafeBytes { p in output.withUnsafeMutableBytes { UARTFrame.encode(channel: channel, payload: p, into: $0) } }
    return Array(output.prefix(written!))
}

private struct Received: Equatable { var channel: UInt8; var payload: [UInt8] }

/// Decodes `bytes` fed in pieces of `piece` bytes (0: all at once).
private func decode(_ bytes: [UInt8], piece: Int = 0, decoder: inout UARTFrameDecoder) -> [Received] {
    var received: [Received] = []
    let step = piece == 0 ? max(bytes.count, 1) : piece
    var start = 0
    while start < bytes.count {
        let end = min(start + step, bytes.count)
        bytes[start..<end].withUnsafeBytes { chunk in
            decoder.decode(chunk) { channel, payload in received.append(Received(channel: channel.rawValue, payload: Array(payload))) }
        }
        start = end
    }
    return received
}

private func decode(_ bytes: [UInt8], piece: Int = 0) -> (frames: [Received], counters: UARTFrameDecoder.Counters) {
    var decoder = UARTFrameDecoder()
    let frames = decode(bytes, piece: piece, decoder: &decoder)
    return (frames, decoder.counters)
}

@Suite("UART framing between the firmware and the host bridge")
struct UARTFramingTests {
    @Test("CRC-16/CCITT-FALSE and CRC-8 check values over \"123456789\"")
    func checkValues() {
        var crc16 = CRC16()
        var crc8: UInt8 = 0
        for byte in Array("123456789".utf8) { crc16.update(byte); crc8 = CRC8.update(crc8, byte) }
        #expect(crc16.value == 0x29B1)
        #expect(crc8 == 0xF4)
    }

    @Test("A Read Request on the ATT channel, byte by byte as the specification's table says")
    func layout() {
        let bytes = frame(.att, [0x0a, 0x2d, 0x00])
        #expect(bytes.count == 5 + 3 + 2)
        #expect(Array(bytes.prefix(4)) == [0xA5, 0x01, 0x03, 0x00])
        #expect(bytes[4] == CRC8.checksum(0x01, 0x03, 0x00))
        var crc = CRC16()
        for byte in bytes[1..<8] { crc.update(byte) }
        #expect(bytes[8] == UInt8(crc.value & 0xFF) && bytes[9] == UInt8(crc.value >> 8))
    }

    @Test("Round trip on every channel, empty and largest payloads, fed all at once and a byte at a time")
    func roundTrips() {
        let payloads: [[UInt8]] = [[], [0xA5], [0x0a, 0x2d, 0x00], (0..<UARTFrame.maximumPayload).map { UInt8(truncatingIfNeeded: $0) },
                                   [UInt8](repeating: 0xA5, count: 40)]
        for channel in [UARTChannel.att, .link, .debug, UARTChannel(rawValue: 0x7F)] {
            let stream = payloads.flatMap { frame(channel, $0) }
            let expected = payloads.map { Received(channel: channel.rawValue, payload: $0) }
            for piece in [0, 1, 7] {
                let (frames, counters) = decode(stream, piece: piece)
                #expect(frames == expected, "channel \(channel.rawValue), piece \(piece)")
                #expect(counters.discardedBytes == 0)
            }
        }
    }

    @Test("Payload over the maximum or an output too small is refused by the encoder")
    func encoderLimits() {
        var output = [UInt8](repeating: 0, count: UARTFrame.maximumFrameByteCount + 10)
        let tooLong = [UInt8](repeating: 1, count: UARTFrame.maximumPayload + 1)
        #expect(tooLong.withUnsafeBytes { p in output.withUnsafeMutableBytes { UARTFrame.encode(channel: .att, payload: p, into: $0) } } == nil)
        var small = [UInt8](repeating: 0, count: 9)
        #expect([UInt8](repeating: 1, count: 3).withUnsafeBytes { p in small.withUnsafeMutableBytes { UARTFrame.encode(channel: .att, payload: p, into: $0) } } == nil)
    }

    @Test("A frame cut at every offset delivers nothing until its last byte")
    func truncation() {
        let bytes = frame(.att, [0x12, 0x2e, 0x00, 0x01, 0x00])
        for cut in 0..<bytes.count {
            var decoder = UARTFrameDecoder()
            #expect(decode(Array(bytes.prefix(cut)), decoder: &decoder).isEmpty, "cut at \(cut)")
            #expect(decode(Array(bytes.suffix(from: cut)), decoder: &decoder) == [Received(channel: 1, payload: [0x12, 0x2e, 0x00, 0x01, 0x00])])
        }
    }

    @Test("Garbage before, between and after frames is skipped and counted")
    func garbageIsSkipped() {
        let garbage: [UInt8] = [0x00, 0xff, 0x13, 0x37]
        let a = frame(.att, [0x02, 0x00, 0x02]), b = frame(.debug, [0x42])
        let (frames, counters) = decode(garbage + a + garbage + b + garbage, piece: 1)
        #expect(frames == [Received(channel: 1, payload: [0x02, 0x00, 0x02]), Received(channel: 3, payload: [0x42])])
        #expect(counters.discardedBytes == 12)
        #expect(counters.frames == 2)
    }

    @Test("Every single-bit flip in a frame is caught, and the next good frame still arrives")
    func bitFlipsAreCaughtAndResynchronised() {
        let damaged = frame(.att, [0x0a, 0x2d, 0x00, 0x99])
        let good = frame(.att, [0x0a, 0x30, 0x00])
        for bit in 0..<(damaged.count * 8) {
            var bytes = damaged
            bytes[bit / 8] ^= UInt8(1 << (bit % 8))
            // Zeros behind: a flipped length that passes the header check waits for its bytes.
            let (frames, counters) = decode(bytes + good + [UInt8](repeating: 0, count: UARTFrame.maximumFrameByteCount), piece: 1)
            #expect(frames == [Received(channel: 1, payload: [0x0a, 0x30, 0x00])], "bit \(bit)")
            #expect(counters.discardedBytes > 0 || counters.headerCheckFailures + counters.crcFailures > 0, "bit \(bit)")
        }
    }

    @Test("A false sync byte with a plausible long length does not swallow the good frames behind it")
    func falseHeaderDoesNotSwallowFrames() {
        // A header that passes its check and announces 300 bytes, then good short frames.
        let header: [UInt8] = [0xA5, 0x01, 0x2c, 0x01, CRC8.checksum(0x01, 0x2c, 0x01)]
        let goods = (0..<30).map { frame(.att, [0x1b, 0x2d, 0x00, UInt8($0)]) }
        let (frames, counters) = decode(header + goods.flatMap { $0 } + [UInt8](repeating: 0, count: 300), piece: 3)
        #expect(frames.count == 30)
        #expect(frames.map { $0.payload[3] } == (0..<30).map { UInt8($0) })
        #expect(counters.crcFailures == 1)
    }

    @Test("An oversize length is refused after the header, not after 64 KB")
    func oversizeLength() {
        let header: [UInt8] = [0xA5, 0x01, 0xff, 0xff, CRC8.checksum(0x01, 0xff, 0xff)]
        let (frames, counters) = decode(header + frame(.link, [0x01]))
        #expect(frames == [Received(channel: 2, payload: [0x01])])
        #expect(counters.oversizeLengths == 1)
    }

    @Test("Random garbage never traps and a frame after it is found")
    func randomGarbage() {
        var state: UInt64 = 0x1234_5678
        var garbage: [UInt8] = []
        for _ in 0..<20_000 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            // Many sync bytes, to exercise resynchronisation rather than the idle skip.
            let byte = UInt8(truncatingIfNeeded: state >> 56)
            garbage.append(byte & 0x0f == 0 ? 0xA5 : byte)
        }
        let good = frame(.debug, [0x01, 0x02, 0x03])
        let (frames, _) = decode(garbage + [UInt8](repeating: 0, count: UARTFrame.maximumFrameByteCount) + good, piece: 5)
        #expect(frames.last == Received(channel: 3, payload: [0x01, 0x02, 0x03]))
    }
}
