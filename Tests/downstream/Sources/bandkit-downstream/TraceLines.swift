import BandATT
import BandGATT
import BandTrace

/// Decodes a btsnoop trace with ``TraceDecoder``: one line per ATT PDU,
///
///     t_us  dir  conn  opcode  handle  uuid  pdu  value
///
/// tab-separated (`-` for an unknown handle, UUID or value), then `pdus N`.
enum TraceLines {
    static func print(path: String) throws {
        // The reader's errors say where in the file; which file is the caller's to say.
        let decoder: TraceDecoder<BtsnoopFileReader>
        do { decoder = try TraceDecoder(path: path) } catch { throw DownstreamFailure("\(path): \(error)") }
        var pdus = 0
        while true {
            let next: TraceDecoderEvent?
            do { next = try decoder.next() } catch { throw DownstreamFailure("\(path): \(error)") }
            guard let event = next else { break }
            guard case .att(let att) = event else { continue }
            pdus += 1
            let trace = att.trace
            let value: String
            do { value = try att.characteristicValue()?.summary ?? "-" } catch { value = "malformed: \(error)" }
            let fields = [
                String(trace.unixMicroseconds),
                trace.direction == .tx ? "tx" : "rx",
                hex(trace.connection, digits: 4),
                att.opcode.map { hex($0.rawValue, digits: 2) } ?? "-",
                att.handle.map { hex($0, digits: 4) } ?? "-",
                att.type?.description ?? "-",
                trace.pdu.map { hex($0, digits: 2, prefix: "") }.joined(),
                value.escapingControlCharacters,
            ]
            Swift.print(fields.joined(separator: "\t"))
        }
        Swift.print("pdus \(pdus)")
    }

    private static func hex<T: BinaryInteger>(_ value: T, digits: Int, prefix: String = "0x") -> String {
        let text = String(value, radix: 16)
        return prefix + String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
