import BandTestSupport
@testable import BandWire
import Testing

@Suite struct ByteCursorTests {
    @Test func readsLittleAndBigEndianExplicitly() throws {
        let input = bytes("34 12 12 34 78 56 34 12 12 34 56 78")
        let (le16, be16, le32, be32) = try parse(input) { (c) throws(ParseError) in
            (try c.readUInt16LE(), try c.readUInt16BE(), try c.readUInt32LE(), try c.readUInt32BE())
        }
        #expect(le16 == 0x1234)
        #expect(be16 == 0x1234)
        #expect(le32 == 0x1234_5678)
        #expect(be32 == 0x1234_5678)
    }

    @Test func truncationNamesTheFieldAndItsOffset() {
        #expect(throws: ParseError(.truncated, at: 1, field: "handle")) {
            try parse(bytes("0a 29")) { (c) throws(ParseError) in
                _ = try c.readUInt8("opcode")
                return try c.readUInt16LE("handle")
            }
        }
    }

    @Test func failedReadDoesNotMoveTheCursor() {
        bytes("01 02 03").withUnsafeBytes { raw in
            var cursor = ByteCursor(raw)
            #expect(throws: ParseError.self) { try cursor.readUInt32LE() }
            #expect(cursor.position == 0)
        }
    }

    @Test func nestedCursorReportsOuterOffsets() {
        bytes("ff ff 01").withUnsafeBytes { raw in
            var outer = ByteCursor(raw, baseOffset: 100)
            try? outer.skip(2)
            var inner = try! outer.readCursor(1)
            _ = try? inner.readUInt8()
            #expect(inner.error(.invalidValue).offset == 103)
        }
    }

    @Test func trailingBytesAreReported() {
        #expect(throws: ParseError(.trailingBytes, at: 1)) {
            try parse(bytes("01 02")) { (c) throws(ParseError) in try c.readUInt8() }
        }
    }

    @Test func transactionRollsBackOnFailure() {
        bytes("01 02").withUnsafeBytes { raw in
            var cursor = ByteCursor(raw)
            let result: UInt32? = try? cursor.transaction { (c) throws(ParseError) in
                _ = try c.readUInt8()
                return try c.readUInt32LE()
            }
            #expect(result == nil)
            #expect(cursor.position == 0)
        }
    }
}

@Suite struct ByteWriterTests {
    @Test func writesMirrorReads() {
        var buffer = [UInt8](repeating: 0, count: 16)
        let n = buffer.withUnsafeMutableBytes { raw in
            var w = ByteWriter(raw)
            w.writeUInt16LE(0x1234)
            w.writeUInt32BE(0xDEAD_BEEF)
            w.writeUInt24LE(0x0A0B0C)
            return try! w.finish()
        }
        #expect(Array(buffer[0..<n]) == bytes("34 12 de ad be ef 0c 0b 0a"))
    }

    @Test func overflowIsStickyAndReported() {
        var buffer = [UInt8](repeating: 0, count: 3)
        buffer.withUnsafeMutableBytes { raw in
            var w = ByteWriter(raw)
            w.writeUInt16LE(1)
            w.writeUInt16LE(2)
            w.writeUInt8(3)
            #expect(w.count == 2)
            #expect(throws: EncodeError(needed: 5, capacity: 3)) { try w.finish() }
        }
    }

    /// writeUTF8 is the firmware's way to write a string without String's index machinery: the
    /// same bytes as the generic collection path, small (inline) and large strings, non-ASCII,
    /// and all or nothing when they do not fit.
    @Test(arguments: ["", "BandKit", "BK-1 (simulated)", "Pulse — Zoë's band ❤️", String(repeating: "long name ", count: 40)])
    func writeUTF8WritesWhatTheCollectionPathWrites(text: String) {
        func written(capacity: Int, _ write: (inout ByteWriter) -> Void) -> (bytes: [UInt8], overflowed: Bool) {
            var buffer = [UInt8](repeating: 0, count: capacity)
            let (count, overflowed) = buffer.withUnsafeMutableBytes { raw in
                var w = ByteWriter(raw)
                w.writeUInt8(0xAA)
                write(&w)
                return (w.count, w.overflowed)
            }
            return (Array(buffer[0..<count]), overflowed)
        }
        for capacity in [1 + text.utf8.count, max(1, text.utf8.count), 600] {
            let ours = written(capacity: capacity) { $0.writeUTF8(text) }
            #expect(ours == written(capacity: capacity) { $0.writeBytes(text.utf8) }, "capacity \(capacity)")
            #expect(ours.bytes == (ours.overflowed ? [0xAA] : [0xAA] + Array(text.utf8)))
        }
        #expect(written(capacity: 8) { $0.writeUTF8("BandKit" as StaticString) }.bytes == [0xAA] + Array("BandKit".utf8))
    }
}

@Suite struct BluetoothUUIDTests {
    @Test func shortUUIDsPrintAsFourHexDigits() {
        #expect(BluetoothUUID(0x2A37).description == "2a37")
        #expect(BluetoothUUID(string: "0x2A37") == BluetoothUUID(0x2A37))
        #expect(BluetoothUUID(string: "00002a37-0000-1000-8000-00805f9b34fb")?.shortValue == 0x2A37)
    }

    @Test func longUUIDsRoundTripThroughWireAndText() throws {
        let text = "0000fee1-0000-3512-2118-0009af100700"
        let uuid = try #require(BluetoothUUID(string: text))
        #expect(uuid.description == text)
        #expect(uuid.shortValue == nil)
        var buffer = [UInt8](repeating: 0, count: 16)
        buffer.withUnsafeMutableBytes { raw in
            var w = ByteWriter(raw)
            uuid.encode(into: &w)
        }
        #expect(buffer == bytes("00 07 10 af 09 00 18 21 12 35 00 00 e1 fe 00 00"))
        let back = try parse(buffer) { (c) throws(ParseError) in try BluetoothUUID(parsing: &c, width: 16) }
        #expect(back == uuid)
    }
}

@Suite struct CRC32Tests {
    @Test func matchesTheStandardCheckValue() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
    }

    @Test func streamingEqualsOneShot() {
        let data = (0..<1000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        var crc = CRC32()
        for chunk in stride(from: 0, to: data.count, by: 13) { crc.update(data[chunk..<min(chunk + 13, data.count)]) }
        #expect(crc.value == CRC32.checksum(data))
    }

    /// The table is a literal (no allocation on the MCU); every entry must still be the
    /// polynomial's remainder, and the raw-buffer path must agree with the collection path.
    @Test func tableLiteralIsThePolynomialsRemainders() {
        #expect(CRC32.table.count == 256)
        for n in 0..<256 {
            var c = UInt32(n)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
            #expect(CRC32.table[n] == c, "entry \(n)")
        }
        let data = (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 5) }
        var raw = CRC32()
        data.withUnsafeBytes { raw.update($0) }
        #expect(raw.value == CRC32.checksum(data))
        #expect(CRC32.checksum([UInt8]()) == 0)
    }
}

@Suite struct HexTests {
    @Test func decodesWithSeparatorsAndRejectsGarbage() {
        #expect(Hex.decode("0A:0b-0c 0d") == [10, 11, 12, 13])
        #expect(Hex.decode("0") == nil)
        #expect(Hex.decode("zz") == nil)
        #expect(Hex.encode([0xAB, 0x01]) == "ab01")
    }
}
