import BandGATT
import BandTrace
import BandWire
import CommandKit

/// `bandsim decode --json`: one object per ATT PDU, written by hand (see ``JSONLineWriter``).
final class JSONDecodeFormat: DecodedEventSink {
    let json: JSONLineWriter

    init(output: BufferedOutput) {
        json = JSONLineWriter(output: output)
    }

    func write(_ event: DecodedATTEvent) throws(OutputError) {
        let trace = event.trace
        json.beginObject()
        json.key("t_us"); json.value(trace.unixMicroseconds)
        json.key("dir"); json.value(trace.direction == .tx ? "tx" : "rx")
        json.key("adapter"); json.value(Int(trace.adapter))
        json.key("conn"); json.value(Int(trace.connection))
        json.key("opcode")
        if let opcode = event.opcode { json.value(Int(opcode.rawValue)) } else { json.null() }
        json.key("handle")
        if let handle = event.handle { json.value(Int(handle)) } else { json.null() }
        json.key("uuid")
        if let type = event.type { writeUUID(type) } else { json.null() }
        json.key("pdu"); json.value(hex: trace.pdu)
        if let error = event.error {
            writeError(error)
        } else {
            do throws(ParseError) {
                if let value = try event.characteristicValue() { CharacteristicJSON.write(value, to: json) }
            } catch {
                writeError(error)
            }
        }
        json.endObject()
        try json.endLine()
    }

    func write(_ event: ConnectionTraceEvent) throws(OutputError) {}

    func finish(_ statistics: TraceDecoder<BtsnoopFileReader>.Statistics) throws(OutputError) {}

    private func writeUUID(_ uuid: BluetoothUUID) {
        if let short = uuid.shortValue {
            json.value(hex: UInt64(short), digits: 4)  // the common case, without building a String
        } else {
            json.value(uuid.description)
        }
    }

    private func writeError(_ error: ParseError) {
        json.key("error")
        CharacteristicJSON.write(error: error, to: json)
    }
}
