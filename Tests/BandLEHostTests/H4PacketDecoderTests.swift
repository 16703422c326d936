import BandHCI
import BandLEHost
import BandTestSupport
import BandWire
import Testing

/// The UART stream into packets: any split, exact boundaries, drops that say why and where.
@Suite struct H4PacketDecoderTests {
    /// Decodes `stream` fed in pieces cut at `cuts`, returning each step's packet (type + hex) or drop.
    func decode(_ stream: [UInt8], cuts: [Int] = [], capacity: Int = 260) -> [String] {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 1)
        defer { buffer.deallocate() }
        var decoder = H4PacketDecoder(buffer: buffer)
        var out: [String] = []
        var start = 0
        for end in cuts + [stream.count] where end >= start {
            Array(stream[start..<end]).withUnsafeBytes { raw in
                var cursor = ByteCursor(raw)
                while true {
                    switch decoder.decode(&cursor) {
                    case .needMoreData: return
                    case .packet(let type): out.append("\(type.rawValue):\(Hex.encode(decoder.packet))")
                    case .dropped(let drop): out.append("drop \(drop.reason) type \(drop.type.rawValue) length \(drop.length) at \(drop.streamOffset)")
                    }
                }
            }
            start = end
        }
        return out
    }

    let stream = bytes("04 0e 04 01 03 0c 00" + " 02 40 20 07 00 03 00 04 00 02 f7 00" + " 04 05 04 00 40 00 13")
    let expected = ["4:0e0401030c00", "2:402007000300040002f700", "4:050400400013"]

    @Test func wholeStreamGivesEachPacket() {
        #expect(decode(stream) == expected)
    }

    @Test func everySplitPointGivesTheSamePackets() {
        for cut in 0...stream.count {
            #expect(decode(stream, cuts: [cut]) == expected, "cut at \(cut)")
        }
        // One byte at a time.
        #expect(decode(stream, cuts: Array(1..<stream.count)) == expected)
    }

    @Test func aByteThatIsNoIndicatorIsDroppedAndTheNextPacketStillDecodes() {
        #expect(decode(bytes("ff 00 04 0e 04 01 03 0c 00")) == [
            "drop unknownIndicator type 255 length 1 at 0", "drop unknownIndicator type 0 length 1 at 1", "4:0e0401030c00",
        ])
    }

    @Test func packetLongerThanTheBufferIsConsumedWholeAndDropped() {
        // ACL with 300 data bytes into a 260-byte buffer, then a good event.
        let long = bytes("02 40 20 2c 01") + [UInt8](repeating: 0xAA, count: 300) + bytes("04 0e 04 01 03 0c 00")
        #expect(decode(long) == ["drop tooLong type 2 length 304 at 0", "4:0e0401030c00"])
        #expect(decode(long, cuts: [3, 100, 290]) == ["drop tooLong type 2 length 304 at 0", "4:0e0401030c00"])
    }

    @Test func scoIsoAndCommandPacketsAreDroppedNotDelivered() {
        #expect(decode(bytes("03 40 00 02 aa bb 05 41 00 01 00 cc 01 03 0c 00 04 0e 04 01 03 0c 00")) == [
            "drop unexpectedType type 3 length 5 at 0", "drop unexpectedType type 5 length 5 at 6",
            "drop unexpectedType type 1 length 3 at 12", "4:0e0401030c00",
        ])
    }

    @Test func emptyEventAndEmptyACLAreWholePackets() {
        #expect(decode(bytes("04 1a 00 02 40 20 00 00")) == ["4:1a00", "2:40200000"])
    }
}

/// The host's whole memory, as docs/architecture.md states it.
@Suite struct LEHostMemoryTests {
    @Test func aHostForATTMTU247Needs2294Bytes() {
        #expect(LEHostMemory.size(attMTU: 247) == 2_294)
        #expect(LEHostMemory.size(attMTU: 23) == 260 + 27 * 5 + 23 + 260 + 272)
    }
}
