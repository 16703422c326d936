import CommandKit
import Foundation
import Glibc
import Testing

@Suite struct JSONLineWriterTests {
    /// Runs `body` against a writer on a temporary file and returns what reached the file.
    func written(capacity: Int = 4096, _ body: (JSONLineWriter) throws -> Void) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("jsonl-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        #expect(fd >= 0)
        let output = BufferedOutput(fileDescriptor: fd, capacity: capacity)
        let json = JSONLineWriter(output: output)
        try body(json)
        try json.flush()
        close(fd)
        return String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
    }

    @Test func heartRateObjectHasCommasOnlyBetweenMembers() throws {
        let text = try written { json in
            json.beginObject()
            json.key("t_us"); json.value(Int64(1_764_460_801_000_000))
            json.key("handle"); json.null()
            json.key("heart_rate")
            json.beginObject()
            json.key("bpm"); json.value(82)
            json.key("contact"); json.value(true)
            json.key("rr"); json.beginArray(); json.value(694); json.value(660); json.endArray()
            json.endObject()
            json.key("empty"); json.beginArray(); json.endArray()
            json.endObject()
            try json.endLine()
            json.beginObject(); json.key("n"); json.value(-5); json.endObject()
            try json.endLine()
        }
        #expect(text == """
            {"t_us":1764460801000000,"handle":null,"heart_rate":{"bpm":82,"contact":true,"rr":[694,660]},"empty":[]}
            {"n":-5}

            """)
    }

    @Test func stringsAreEscapedPerRFC8259() throws {
        let text = try written { json in
            json.beginObject(); json.key("s"); json.value("a\"b\\c\nd\u{01}é"); json.endObject()
            try json.endLine()
        }
        #expect(text == "{\"s\":\"a\\\"b\\\\c\\nd\\u0001é\"}\n")
        let decoded = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String]
        #expect(decoded?["s"] == "a\"b\\c\nd\u{01}é")
    }

    @Test func exactDecimalsForBinaryAndDecimalScales() throws {
        let text = try written { json in
            json.beginArray()
            json.value(numerator: 896, denominator: 256)      // RSC speed 3.5 m/s
            json.value(numerator: 1, denominator: 256)        // 0.00390625
            json.value(numerator: 121, denominator: 100)      // stride 1.21 m
            json.value(numerator: 12_345, denominator: 10)    // distance 1234.5 m
            json.value(numerator: 512, denominator: 256)      // 2
            json.value(numerator: -3, denominator: 4)
            [UInt8]([0x1b, 0x12, 0x00]).withUnsafeBytes { json.value(hex: $0) }
            json.value(hex: 0x2a37, digits: 4)
            json.endArray()
            try json.endLine()
        }
        #expect(text == "[3.5,0.00390625,1.21,1234.5,2,-0.75,\"1b1200\",\"2a37\"]\n")
    }

    @Test func linesLongerThanTheBufferAndManyLinesAreWrittenWhole() throws {
        let payload = [UInt8](repeating: 0xAB, count: 3000)
        let text = try written(capacity: 4096) { json in
            for i in 0..<100 {
                json.beginObject()
                json.key("i"); json.value(i)
                payload.withUnsafeBytes { json.key("pdu"); json.value(hex: $0) }
                json.endObject()
                try json.endLine()
            }
        }
        let lines = text.split(separator: "\n")
        #expect(lines.count == 100)
        for (i, line) in lines.enumerated() {
            #expect(line == "{\"i\":\(i),\"pdu\":\"" + String(repeating: "ab", count: 3000) + "\"}")
        }
        #expect(lines[99].hasPrefix("{\"i\":99,\"pdu\":\"abab"))
    }
}
