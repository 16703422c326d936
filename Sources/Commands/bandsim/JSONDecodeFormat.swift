import BandGATT
import BandTrace
import BandWire
import CommandKit

/// `bandsim decode --json`: one object per ATT PDU, written by hand (see ``JSONLine``).
final class JSONDecodeFormat: DecodedEventSink {
    let output: BufferedOutput

    init(output: BufferedOutput) {
        self.output = output
    }

    /// The longest line a PDU of `count` bytes can produce: its hex (2 bytes per byte) and at
    /// most one RR-interval per 2 bytes (≤ 6 bytes each: 3 per byte), plus well under 1 KiB of
    /// fixed keys, numbers, a 128-bit UUID and an error object.
    static func maximumLineLength(pduCount: Int) -> Int { 1024 + 5 * pduCount }

    func write(_ event: DecodedATTEvent) throws(OutputError) {
        let trace = event.trace
        try output.writeJSONLine(maximumLength: Self.maximumLineLength(pduCount: trace.pdu.count)) { json in
            json.beginObject()
            json.key("t_us"); json.value(trace.unixMicroseconds)
            json.key("dir")
            if trace.direction == .tx { json.value(verbatim: "tx") } else { json.value(verbatim: "rx") }
            if trace.viewpoint == .central { json.key("seen_from"); json.value(verbatim: "central") }
            if trace.crcFailed { json.key("crc_failed"); json.value(true) }
            json.key("adapter"); json.value(Int(trace.adapter))
            json.key("conn"); json.value(Int(trace.connection))
            json.key("opcode")
            if let opcode = event.opcode { json.value(Int(opcode.rawValue)) } else { json.null() }
            json.key("handle")
            if let handle = event.handle { json.value(Int(handle)) } else { json.null() }
            json.key("uuid")
            if let type = event.type { Self.writeUUID(type, to: &json) } else { json.null() }
            json.key("pdu"); json.value(hex: trace.pdu)
            if let error = event.error {
                json.key("error")
                CharacteristicJSON.write(error: error, to: &json)
            } else {
                do throws(ParseError) {
                    if let value = try event.characteristicValue() { CharacteristicJSON.write(consume value, to: &json) }
                } catch {
                    json.key("error")
                    CharacteristicJSON.write(error: error, to: &json)
                }
            }
            json.endObject()
        }
    }

    func write(_ event: ConnectionTraceEvent) throws(OutputError) {}

    func finish(_ statistics: TraceDecoder<BtsnoopFileReader>.Statistics) throws(OutputError) {}

    private static func writeUUID(_ uuid: BluetoothUUID, to json: inout JSONLine) {
        if let short = uuid.shortValue {
            json.value(hex: UInt64(short), digits: 4)  // the common case, without building a String
        } else {
            json.value(uuid.description)
        }
    }
}
