import BandATT
import BandTrace
import BandWire
import CommandKit

/// `bandsim decode` without `--json`: one readable line per ATT PDU and per connection change.
///
///     1764460801.000000 rx conn 0x0040 Handle Value Notification (0x1b) handle 0x0012 2a37 1b12000652
final class TextDecodeFormat: DecodedEventSink {
    let output: BufferedOutput

    init(output: BufferedOutput) {
        self.output = output
    }

    private func timestamp(_ unixMicroseconds: Int64) {
        let seconds = unixMicroseconds / 1_000_000
        let micros = unixMicroseconds % 1_000_000
        output.append(decimal: seconds)
        output.append(UInt8(ascii: "."))
        var divisor: Int64 = 100_000
        while divisor > 0 {
            output.append(UInt8(truncatingIfNeeded: (micros / divisor) % 10) &+ 48)
            divisor /= 10
        }
    }

    func write(_ event: DecodedATTEvent) throws(OutputError) {
        let trace = event.trace
        timestamp(trace.unixMicroseconds)
        output.append(trace.direction == .tx ? " tx conn 0x" : " rx conn 0x")
        output.append(hex: UInt64(trace.connection), digits: 4)
        if trace.adapter != 0 {
            output.append(" hci")
            output.append(decimal: Int(trace.adapter))
        }
        output.append(" ")
        if let opcode = event.opcode {
            if let name = opcode.name { output.append(name) } else { output.append("opcode") }
            output.append(" (0x")
            output.append(hex: UInt64(opcode.rawValue), digits: 2)
            output.append(")")
        } else {
            output.append("empty PDU")
        }
        if let handle = event.handle {
            output.append(" handle 0x")
            output.append(hex: UInt64(handle), digits: 4)
        }
        if let type = event.type {
            output.append(" ")
            output.append(type.description)
        }
        output.append(" ")
        output.append(hex: trace.pdu)
        if trace.crcFailed { output.append(" (CRC failed at the sniffer; the peer acknowledged it)") }
        do throws(ParseError) {
            if let error = event.error { throw error }
            if let value = try event.characteristicValue() { CharacteristicText.write(value, to: output) }
        } catch {
            output.append("  malformed: ")
            output.append(error.description)
        }
        try output.endLine()
    }

    func write(_ event: ConnectionTraceEvent) throws(OutputError) {
        timestamp(event.unixMicroseconds)
        switch event.change {
        case .connected(let peer):
            output.append(" connected conn 0x")
            output.append(hex: UInt64(event.connection), digits: 4)
            output.append(" to ")
            output.append(peer.address.description)
            output.append(peer.type.isRandom ? " (random)" : " (public)")
        case .disconnected(let reason):
            output.append(" disconnected conn 0x")
            output.append(hex: UInt64(event.connection), digits: 4)
            output.append(" reason 0x")
            output.append(hex: UInt64(reason), digits: 2)
        }
        try output.endLine()
    }

    func finish(_ statistics: TraceDecoder<BtsnoopFileReader>.Statistics) throws(OutputError) {
        output.append("# ")
        output.append(decimal: statistics.records)
        output.append(" records, ")
        output.append(decimal: statistics.attPDUs)
        output.append(" ATT PDUs (")
        output.append(decimal: statistics.malformedPDUs)
        output.append(" malformed), ")
        output.append(decimal: statistics.anomalies)
        output.append(" problems below ATT")
        try output.endLine()
    }
}
