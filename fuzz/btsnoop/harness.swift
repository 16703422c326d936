// libFuzzer harness for trace decoding: arbitrary bytes as a btsnoop file, through the record
// parser, HCI unwrapping, L2CAP reassembly, ATT layout, discovery and BandGATT values.
//
// Properties checked on every input:
//  1. nothing traps, whatever the bytes;
//  2. the streaming parser fed in small chunks (as BtsnoopFileReader refills its buffer)
//     yields exactly the records, and the same final error, as the in-memory reader;
//  3. every record is a view inside the input, records are contiguous from offset 16, and an
//     error names a record index and a byte offset that exist;
//  4. the full decoder (TraceDecoder over the in-memory reader) sees the same records, every
//     ATT PDU it yields lies inside the input or the reassembler's buffers, and its
//     characteristic values re-encode to their bytes when they decoded.
import BandGATT
import BandTrace
import BandWire

struct RecordSummary: Equatable {
    var index: Int
    var offset: Int
    var length: Int
    var flags: UInt32
}

func readInMemory(_ input: UnsafeRawBufferPointer) -> ([RecordSummary], BtsnoopError?) {
    var records: [RecordSummary] = []
    do {
        var reader = try BtsnoopMemoryReader(bytes: input)
        while let record = try reader.next() {
            let start = record.data.baseAddress.map { $0 - input.baseAddress! } ?? record.offset + 24
            precondition(start >= 0 && start + record.data.count <= input.count, "record view outside the input")
            precondition(start == record.offset + BtsnoopRecordHeader.size, "record data does not follow its header")
            precondition(record.index == records.count, "record index skipped")
            let expected = records.last.map { $0.offset + BtsnoopRecordHeader.size + $0.length } ?? BtsnoopFileHeader.size
            precondition(record.offset == expected, "records not contiguous")
            records.append(RecordSummary(index: record.index, offset: record.offset, length: record.data.count, flags: record.flags))
        }
        return (records, nil)
    } catch {
        precondition(error.offset >= 0 && error.offset <= input.count, "error offset \(error.offset) outside \(input.count) bytes")
        if let index = error.recordIndex { precondition(index == records.count, "error names record \(index) after \(records.count)") }
        return (records, error)
    }
}

/// The parser fed `chunk` more bytes at a time, never consuming a partial record.
func readStreaming(_ input: UnsafeRawBufferPointer, chunk: Int) -> ([RecordSummary], BtsnoopError?) {
    var parser = BtsnoopRecordParser()
    var records: [RecordSummary] = []
    var consumed = 0
    var available = 0
    do {
        while true {
            var cursor = ByteCursor(UnsafeRawBufferPointer(rebasing: input[consumed..<available]))
            if parser.datalink == nil {
                if try parser.parseFileHeader(&cursor) {
                    consumed += cursor.position
                    continue
                }
            } else if let record = try parser.nextRecord(&cursor) {
                records.append(RecordSummary(index: record.index, offset: record.offset, length: record.data.count, flags: record.flags))
                consumed += cursor.position
                precondition(consumed == parser.offset, "parser offset disagrees with bytes consumed")
                continue
            }
            if available == input.count {
                try parser.finish(unconsumed: cursor)
                return (records, nil)
            }
            available = min(input.count, available + chunk)
        }
    } catch {
        return (records, error)
    }
}

func decodeAll(_ input: UnsafeRawBufferPointer, expectedRecords: Int) {
    guard let reader = try? BtsnoopMemoryReader(bytes: input) else { return }
    let decoder = TraceDecoder(source: reader)
    var scratch = [UInt8](repeating: 0, count: 1024)
    do {
        while let event = try decoder.next() {
            guard case .att(let att) = event else { continue }
            precondition(att.trace.pdu.count <= 0xFFFF, "PDU longer than any L2CAP frame")
            if let value = att.value {
                precondition(value.count <= att.trace.pdu.count, "value longer than its PDU")
            }
            if let characteristic = try? att.characteristicValue(), let value = att.value {
                let written = scratch.withUnsafeMutableBytes { raw -> [UInt8] in
                    var writer = ByteWriter(raw)
                    characteristic.encode(into: &writer)
                    return Array(writer.written)
                }
                // Values whose decoders normalise (e.g. contact bit without support) may differ;
                // a decoded value must at least re-decode to itself.
                let again = written.withUnsafeBytes { try? CharacteristicValue(uuid: att.type!, bytes: $0) }
                precondition(again == characteristic, "characteristic value does not survive encode → decode")
                _ = value
            }
        }
    } catch {
        precondition(error.recordIndex.map { $0 <= expectedRecords } ?? true, "decoder error after the last record")
    }
    precondition(decoder.statistics.records == expectedRecords, "decoder saw \(decoder.statistics.records) records, reader \(expectedRecords)")
    precondition(decoder.extractor.reassembler.openFrames <= L2CAPReassembler.defaultSlotCount, "more open frames than slots")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBtsnoop(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    let (records, error) = readInMemory(input)
    let chunk = size > 16 ? Int(input[size - 1] % 29) + 1 : 1
    let (streamed, streamError) = readStreaming(input, chunk: chunk)
    precondition(streamed == records, "streaming (chunk \(chunk)) and in-memory readers disagree on records")
    precondition(streamError == error, "streaming and in-memory readers disagree on the error: \(String(describing: streamError)) vs \(String(describing: error))")
    decodeAll(input, expectedRecords: records.count)
    return 0
}
