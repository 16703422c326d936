// libFuzzer harness for trace decoding: arbitrary bytes as a btsnoop file, through the record
// parser, HCI unwrapping, L2CAP reassembly, ATT layout, discovery and BandGATT values.
//
// Properties checked on every input:
//  1. nothing traps, whatever the bytes;
//  2. the streaming parser fed in chunks of 1–29 bytes (as BtsnoopFileReader refills its
//     buffer) yields exactly the records, and the same final error, as the in-memory reader;
//  3. every record is a view inside the input, records are contiguous from offset 16, and an
//     error names a record index and a byte offset that exist;
//  4. the full decoder (TraceDecoder over the in-memory reader) sees the same records, every
//     ATT PDU it yields lies inside the input or the reassembler's buffers, and its
//     characteristic values re-encode to their bytes when they decoded;
//  5. TraceDecoder.decodeAll(into:) hands out exactly the events next() returns, in order,
//     and ends with the same damage.
import BandGATT
import BandTrace
import BandWire

nonisolated(unsafe) let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 2048, alignment: 8)

/// The parser fed `chunk` more bytes at a time, as BtsnoopFileReader refills its buffer,
/// never consuming a partial record.
struct ChunkedReader {
    let input: UnsafeRawBufferPointer
    let chunk: Int
    var parser = BtsnoopRecordParser()
    var consumed = 0
    var available = 0

    mutating func next() throws(BtsnoopError) -> BtsnoopRecord? {
        while true {
            var cursor = ByteCursor(UnsafeRawBufferPointer(rebasing: input[consumed..<available]))
            if parser.datalink == nil {
                if try parser.parseFileHeader(&cursor) {
                    consumed += cursor.position
                    continue
                }
            } else if let record = try parser.nextPacket(&cursor) {
                consumed += cursor.position
                precondition(consumed == parser.offset, "parser offset disagrees with bytes consumed")
                return record
            }
            if available == input.count {
                try parser.finish(unconsumed: cursor)
                return nil
            }
            available = min(input.count, available + chunk)
        }
    }
}

/// Reads with the in-memory reader and the chunked parser in lockstep; returns the record count.
func compareReaders(_ input: UnsafeRawBufferPointer, chunk: Int) -> Int {
    var chunked = ChunkedReader(input: input, chunk: chunk)
    var memory: BtsnoopMemoryReader
    do {
        memory = try BtsnoopMemoryReader(bytes: input)
    } catch {
        precondition(error.offset >= 0 && error.offset <= input.count, "error offset \(error.offset) outside \(input.count) bytes")
        do {
            while try chunked.next() != nil { preconditionFailure("chunked reader read a record of a file with a bad header") }
            preconditionFailure("chunked reader accepted a bad header")
        } catch let chunkedError {
            precondition(chunkedError == error, "header errors differ: \(chunkedError) vs \(error)")
        }
        return 0
    }
    var count = 0
    var expectedOffset = BtsnoopFileHeader.size
    while true {
        let a: BtsnoopRecord?, b: BtsnoopRecord?
        var errorA: BtsnoopError?, errorB: BtsnoopError?
        do { a = try memory.next() } catch { a = nil; errorA = error }
        do { b = try chunked.next() } catch { b = nil; errorB = error }
        precondition(errorA == errorB, "readers disagree on the error: \(String(describing: errorA)) vs \(String(describing: errorB))")
        if let errorA {
            precondition(errorA.offset >= 0 && errorA.offset <= input.count, "error offset outside the input")
            precondition(errorA.recordIndex == nil || errorA.recordIndex == count, "error names record \(String(describing: errorA.recordIndex)) after \(count)")
            return count
        }
        guard let a, let b else {
            precondition(a == nil && b == nil, "one reader ended early")
            return count
        }
        precondition(a.index == count && b.index == count, "record index skipped")
        precondition(a.offset == expectedOffset && b.offset == expectedOffset, "records not contiguous")
        precondition(a.header == b.header && a.data.elementsEqual(b.data), "readers disagree on record \(count)")
        let start = a.data.baseAddress.map { $0 - input.baseAddress! } ?? a.offset + BtsnoopRecordHeader.size
        precondition(start == a.offset + BtsnoopRecordHeader.size && start + a.data.count <= input.count, "record view outside the input")
        expectedOffset += BtsnoopRecordHeader.size + a.data.count
        count += 1
    }
}

/// What one event said, comparable across the two ways of walking a trace.
enum EventSignature: Equatable {
    case att(record: Int, handle: UInt16?, type: BluetoothUUID?, error: ParseError?, pdu: [UInt8], value: [UInt8]?)
    case connection(ConnectionTraceEvent)
    case anomaly(TraceAnomaly)

    init(_ event: borrowing DecodedATTEvent) {
        self = .att(record: event.trace.recordIndex, handle: event.handle, type: event.type, error: event.error,
                    pdu: Array(event.trace.pdu), value: event.value.map { Array($0) })
    }
}

struct SignatureRecorder: TraceEventHandler {
    typealias Failure = Never
    var events: [EventSignature] = []
    mutating func handle(_ event: borrowing DecodedATTEvent) { events.append(EventSignature(event)) }
    mutating func handle(_ event: ConnectionTraceEvent) { events.append(.connection(event)) }
    mutating func handle(_ anomaly: TraceAnomaly) { events.append(.anomaly(anomaly)) }
}

func decodeWithNext(_ input: UnsafeRawBufferPointer, expectedRecords: Int) -> (events: [EventSignature], damage: BtsnoopError?)? {
    guard let reader = try? BtsnoopMemoryReader(bytes: input) else { return nil }
    let decoder = TraceDecoder(source: reader)
    var events: [EventSignature] = []
    var damage: BtsnoopError?
    do {
        while let event = try decoder.next() {
            switch event {
            case .connection(let change): events.append(.connection(change))
            case .anomaly(let anomaly): events.append(.anomaly(anomaly))
            case .att(let att): events.append(EventSignature(att))
            }
            guard case .att(let att) = event else { continue }
            if let value = att.value {
                precondition(value.count <= att.trace.pdu.count, "value longer than its PDU")
            }
            // A decoded characteristic value must survive encode → decode unchanged.
            if let characteristic = try? att.characteristicValue(), let type = att.type {
                var writer = ByteWriter(scratch)
                characteristic.encode(into: &writer)
                precondition(!writer.overflowed, "a decoded value does not re-encode in 2048 bytes")
                let again = try? CharacteristicValue(uuid: type, bytes: writer.written)
                precondition(again == characteristic, "characteristic value does not survive encode → decode")
            }
        }
    } catch {
        damage = error
        precondition(error.recordIndex.map { $0 <= expectedRecords } ?? true, "decoder error after the last record")
    }
    precondition(decoder.statistics.records == expectedRecords, "decoder saw \(decoder.statistics.records) records, reader \(expectedRecords)")
    precondition(decoder.extractor.reassembler.openFrames <= L2CAPReassembler.defaultSlotCount, "more open frames than slots")
    return (events, damage)
}

func decodeWithHandler(_ input: UnsafeRawBufferPointer) -> (events: [EventSignature], damage: BtsnoopError?)? {
    guard let reader = try? BtsnoopMemoryReader(bytes: input) else { return nil }
    let decoder = TraceDecoder(source: reader)
    var recorder = SignatureRecorder()
    let damage = decoder.decodeAll(into: &recorder)
    return (recorder.events, damage)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBtsnoop(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    let chunk = size > 16 ? Int(input[size - 1] % 29) + 1 : 1
    let records = compareReaders(input, chunk: chunk)
    let stepped = decodeWithNext(input, expectedRecords: records)
    let handled = decodeWithHandler(input)
    precondition(stepped?.events == handled?.events, "decodeAll(into:) and next() disagree on the events")
    precondition(stepped?.damage == handled?.damage, "decodeAll(into:) and next() disagree on the damage")
    return 0
}
