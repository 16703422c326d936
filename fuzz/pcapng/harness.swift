// libFuzzer harness for the pcapng and pcap readers: arbitrary bytes as a pcapng file and as a
// pcap file, through the block/record framer, the HCI link types (201, 187, 254), L2CAP
// reassembly, ATT layout, discovery and BandGATT values.
//
// Properties checked on every input, for both framers:
//  1. nothing traps, whatever the bytes;
//  2. the streaming framer fed in chunks of 1–29 bytes (as CaptureFileReader refills its
//     buffer; skipped blocks are consumed as they stream past) yields exactly the packets, and
//     the same final error, as the in-memory reader;
//  3. every packet is a view inside the input at its stated data offset, packet indexes count
//     up from 0, block offsets increase, and an error names an offset inside the input;
//  4. the full decoder (TraceDecoder over the in-memory reader) sees one record per packet, and
//     TraceDecoder.decodeAll(into:) hands out exactly the events next() returns, ending with the
//     same damage.
import BandGATT
import BandTrace
import BandWire

/// The framer fed `chunk` more bytes at a time, never given back what it consumed.
struct ChunkedReader<Framer: CaptureContainerFramer> {
    let input: UnsafeRawBufferPointer
    let chunk: Int
    var framer = Framer()
    var consumed = 0
    var available = 0
    var started = false

    mutating func next() throws(CaptureFileError) -> CapturePacket? {
        while true {
            var cursor = ByteCursor(UnsafeRawBufferPointer(rebasing: input[consumed..<available]))
            if !started {
                if try framer.parseFileHeader(&cursor) {
                    consumed += cursor.position
                    started = true
                    continue
                }
            } else {
                let packet = try framer.nextPacket(&cursor)
                consumed += cursor.position
                if let packet { return packet }
            }
            if available == input.count {
                try framer.finish(unconsumed: cursor)
                precondition(started, "a file with no header ended without an error")
                return nil
            }
            available = min(input.count, available + chunk)
        }
    }
}

/// Reads with the in-memory reader and the chunked framer in lockstep; returns the packet count.
func compareReaders<Framer: CaptureContainerFramer>(_ input: UnsafeRawBufferPointer, chunk: Int, _: Framer.Type) -> Int {
    var chunked = ChunkedReader<Framer>(input: input, chunk: chunk)
    var memory: CaptureMemoryReader<Framer>
    do {
        memory = try CaptureMemoryReader<Framer>(bytes: input)
    } catch {
        precondition(error.offset >= 0 && error.offset <= input.count, "error offset \(error.offset) outside \(input.count) bytes")
        do {
            while try chunked.next() != nil { preconditionFailure("chunked reader read a packet of a file with a bad header") }
            preconditionFailure("chunked reader accepted a bad header")
        } catch let chunkedError {
            precondition(chunkedError == error, "header errors differ: \(chunkedError) vs \(error)")
        }
        return 0
    }
    var count = 0
    var lastOffset = -1
    while true {
        let a: CapturePacket?, b: CapturePacket?
        var errorA: CaptureFileError?, errorB: CaptureFileError?
        do { a = try memory.nextPacket() } catch { a = nil; errorA = error }
        do { b = try chunked.next() } catch { b = nil; errorB = error }
        precondition(errorA == errorB, "readers disagree on the error: \(String(describing: errorA)) vs \(String(describing: errorB))")
        if let errorA {
            precondition(errorA.offset >= 0 && errorA.offset <= input.count, "error offset outside the input")
            precondition(errorA.offset > lastOffset || errorA.blockIndex == nil, "error before the last packet")
            return count
        }
        guard let a, let b else {
            precondition(a == nil && b == nil, "one reader ended early")
            return count
        }
        precondition(a.index == count && b.index == count, "packet index skipped")
        precondition(a.offset > lastOffset && a.offset == b.offset, "packets out of order")
        precondition(a.unixMicroseconds == b.unixMicroseconds && a.linkType == b.linkType && a.interfaceID == b.interfaceID,
                     "readers disagree on packet \(count)")
        precondition(a.data.elementsEqual(b.data), "readers disagree on the bytes of packet \(count)")
        let start = a.data.baseAddress.map { $0 - input.baseAddress! } ?? a.dataOffset
        precondition(start == a.dataOffset && start + a.data.count <= input.count, "packet view outside the input")
        lastOffset = a.offset
        count += 1
    }
}

/// What one event said, comparable across the two ways of walking a trace.
enum EventSignature: Equatable {
    case att(record: Int, handle: UInt16?, type: BluetoothUUID?, error: ParseError?, pdu: [UInt8])
    case connection(ConnectionTraceEvent)
    case anomaly(TraceAnomaly)

    init(_ event: borrowing DecodedATTEvent) {
        self = .att(record: event.trace.recordIndex, handle: event.handle, type: event.type, error: event.error, pdu: Array(event.trace.pdu))
    }
}

struct SignatureRecorder: TraceEventHandler {
    typealias Failure = Never
    var events: [EventSignature] = []
    mutating func handle(_ event: borrowing DecodedATTEvent) {
        let valueCount = event.value?.count ?? 0, pduCount = event.trace.pdu.count
        precondition(valueCount <= pduCount, "value longer than its PDU")
        _ = try? event.characteristicValue()
        events.append(EventSignature(event))
    }
    mutating func handle(_ event: ConnectionTraceEvent) { events.append(.connection(event)) }
    mutating func handle(_ anomaly: TraceAnomaly) { events.append(.anomaly(anomaly)) }
}

func decode<Framer: CaptureContainerFramer>(_ input: UnsafeRawBufferPointer, packets: Int, _: Framer.Type) {
    guard let reader = try? CaptureMemoryReader<Framer>(bytes: input) else { return }
    let stepped = TraceDecoder(source: reader)
    var events: [EventSignature] = []
    var damage: CaptureFileError?
    do {
        while let event = try stepped.next() {
            switch event {
            case .connection(let change): events.append(.connection(change))
            case .anomaly(let anomaly): events.append(.anomaly(anomaly))
            case .att(let att): events.append(EventSignature(att))
            }
        }
    } catch {
        damage = error
    }
    precondition(stepped.statistics.records == packets, "decoder saw \(stepped.statistics.records) records, reader \(packets) packets")
    precondition(stepped.extractor.reassembler.openFrames <= L2CAPReassembler.defaultSlotCount, "more open frames than slots")
    let handled = TraceDecoder(source: try! CaptureMemoryReader<Framer>(bytes: input))
    var recorder = SignatureRecorder()
    let handledDamage = handled.decodeAll(into: &recorder)
    precondition(recorder.events == events, "decodeAll(into:) and next() disagree on the events")
    precondition(handledDamage == damage, "decodeAll(into:) and next() disagree on the damage")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPcapng(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    let chunk = size > 16 ? Int(input[size - 1] % 29) + 1 : 1
    let pcapng = compareReaders(input, chunk: chunk, PcapngBlockParser.self)
    decode(input, packets: pcapng, PcapngBlockParser.self)
    let pcap = compareReaders(input, chunk: chunk, PcapRecordParser.self)
    decode(input, packets: pcap, PcapRecordParser.self)
    return 0
}
