import CommandKit
import Foundation
import Glibc
import JSONOutput
import Testing

@Suite struct JSONLineTests {
    /// Runs `body` against an output on a temporary file and returns what reached the file.
    func written(capacity: Int = 4096, _ body: (BufferedOutput) throws -> Void) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("jsonl-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        #expect(fd >= 0)
        let output = BufferedOutput(fileDescriptor: fd, capacity: capacity)
        try body(output)
        try output.flush()
        close(fd)
        return String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
    }

    @Test func heartRateObjectHasCommasOnlyBetweenMembers() throws {
        let text = try written { output in
            try output.writeJSONLine(maximumLength: 256) { json in
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
            }
            try output.writeJSONLine(maximumLength: 16) { json in
                json.beginObject(); json.key("n"); json.value(-5); json.endObject()
            }
        }
        #expect(text == """
            {"t_us":1764460801000000,"handle":null,"heart_rate":{"bpm":82,"contact":true,"rr":[694,660]},"empty":[]}
            {"n":-5}

            """)
    }

    @Test func stringsAreEscapedPerRFC8259() throws {
        let text = try written { output in
            try output.writeJSONLine(maximumLength: 64) { json in
                json.beginObject(); json.key("s"); json.value("a\"b\\c\nd\u{01}é"); json.endObject()
            }
        }
        #expect(text == "{\"s\":\"a\\\"b\\\\c\\nd\\u0001é\"}\n")
        let decoded = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String]
        #expect(decoded?["s"] == "a\"b\\c\nd\u{01}é")
    }

    /// The output line's own fast paths (keys in one reservation, table-driven digits and hex)
    /// write exactly the bytes of the writer's portable ones.
    @Test func outputLinesWriteWhatTheInMemoryWriterWrites() throws {
        let strings = ["", "plain", "a\"b\\c\nd\u{01}\u{7F}\u{85}é😀\u{10FFFF}", String((0..<0xA0).map { Character(Unicode.Scalar($0)!) })]
        let numbers: [Int64] = [0, -1, 9, 10, 99, 100, 9999, 10_000, 99_999_999, 100_000_000, .max, .min]
        func body<Sink: JSONSink>(_ json: inout JSONWriter<Sink>) {
            json.beginObject()
            json.key("n"); json.beginArray(); for number in numbers { json.value(number) }; json.endArray()
            json.key("strings"); json.beginArray(); for text in strings { json.value(text) }; json.endArray()
            json.key("fraction"); json.value(numerator: -896, denominator: 256)
            json.key("hex"); [UInt8](0...255).withUnsafeBytes { json.value(hex: $0) }
            json.key("uuid"); json.value(hex: 0x2a37, digits: 4)
            json.key("x"); json.value(0.1)
            json.endObject()
        }
        let line = try written(capacity: 1 << 16) { output in try output.writeJSONLine(maximumLength: 8192) { body(&$0) } }
        #expect(line == JSON.text { body(&$0) } + "\n")
    }

    @Test func exactDecimalsForBinaryAndDecimalScales() throws {
        let text = try written { output in
            try output.writeJSONLine(maximumLength: 128) { json in
                json.beginArray()
                json.value(numerator: 896, denominator: 256)      // RSC speed 3.5 m/s
                json.value(numerator: 1, denominator: 256)        // 0.00390625
                json.value(numerator: 121, denominator: 100)      // stride 1.21 m
                json.value(numerator: 12_345, denominator: 10)    // distance 1234.5 m
                json.value(numerator: 512, denominator: 256)      // 2
                json.value(numerator: -3, denominator: 4)
                [UInt8]([0x1b, 0x12, 0x00]).withUnsafeBytes { json.value(hex: $0) }
                json.value(hex: 0x2a37, digits: 4)
                json.value(verbatim: "rx")
                json.endArray()
            }
        }
        #expect(text == "[3.5,0.00390625,1.21,1234.5,2,-0.75,\"1b1200\",\"2a37\",\"rx\"]\n")
    }

    /// Every digit count of both signs and the edges of each formatting path (1–2 digits,
    /// up to 8, 8-digit halves, 17 to 20 digits) against Swift's own `description`.
    @Test func decimalsMatchSwiftsFormattingAtEveryLength() throws {
        var values: [Int64] = [0, Int64.max, Int64.min, Int64.min + 1, 1_764_460_801_000_000]
        var power: Int64 = 1
        for _ in 0..<19 {
            values += [power - 1, power, power + 1, -power, -(power - 1), power * 9 / 10 * 10 / 9]
            power = power.multipliedReportingOverflow(by: 10).partialValue
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 { values.append(Int64.random(in: .min ... .max, using: &generator) >> Int64.random(in: 0...62, using: &generator)) }
        let text = try written(capacity: 1 << 20) { output in
            for value in values {
                try output.writeLine(maximumLength: 20) { $0.append(decimal: value) }
            }
        }
        #expect(text.split(separator: "\n").map(String.init) == values.map(\.description))
    }

    @Test func hexOfEveryByteValue() throws {
        let bytes = [UInt8](0...255)
        let text = try written { output in
            try output.writeLine(maximumLength: 512) { line in bytes.withUnsafeBytes { line.append(hex: $0) } }
        }
        #expect(text == bytes.map { String(format: "%02x", $0) }.joined() + "\n")
    }

    @Test func linesLongerThanTheBufferAndManyLinesAreWrittenWhole() throws {
        let payload = [UInt8](repeating: 0xAB, count: 1500)
        let text = try written(capacity: 4096) { output in
            for i in 0..<100 {
                try output.writeJSONLine(maximumLength: 3100) { json in
                    json.beginObject()
                    json.key("i"); json.value(i)
                    payload.withUnsafeBytes { json.key("pdu"); json.value(hex: $0) }
                    json.endObject()
                }
            }
        }
        let lines = text.split(separator: "\n")
        #expect(lines.count == 100)
        for (i, line) in lines.enumerated() {
            #expect(line == "{\"i\":\(i),\"pdu\":\"" + String(repeating: "ab", count: 1500) + "\"}")
        }
    }

    /// The plain appends of a text printer still split what does not fit behind the buffered bytes.
    @Test func bufferedAppendsLongerThanTheBufferArriveWhole() throws {
        let payload = [UInt8](repeating: 0xCD, count: 5000)
        let text = try written(capacity: 4096) { output in
            output.append("pdu ")
            payload.withUnsafeBytes { output.append(hex: $0) }
            output.append(decimal: -42)
            try output.endLine()
        }
        #expect(text == "pdu " + String(repeating: "cd", count: 5000) + "-42\n")
    }

    /// A write that fails while an append makes room (where nothing can throw) is not lost,
    /// even when later writes succeed: the next flush throws it. A non-blocking pipe that is full
    /// fails the first write with EAGAIN, then takes the rest once the reader has drained it.
    @Test func aWriteErrorMidLineIsThrownByTheNextFlushEvenIfLaterWritesSucceed() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
        _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)
        var filler = [UInt8](repeating: 0, count: 4096)
        while write(ends[1], &filler, filler.count) > 0 {}
        let output = BufferedOutput(fileDescriptor: ends[1], capacity: 4096)
        let payload = [UInt8](repeating: 0x5A, count: 1500)
        payload.withUnsafeBytes { output.append(hex: $0) }   // 3000 bytes buffered
        payload.withUnsafeBytes { output.append(hex: $0) }   // needs room: that write fails (EAGAIN)
        while read(ends[0], &filler, filler.count) > 0 {}    // the reader catches up
        do {
            try output.flush()
            Issue.record("the failed write must be reported, not dropped")
        } catch {
            #expect(error.errno == EAGAIN)
        }
    }
}
