// libFuzzer harness for the gateway's spool reader (BandReader `SpoolFile`): arbitrary bytes as
// a spool file, with and without the header in front, and the same bytes spliced between valid
// records.
// Properties checked on every input:
//  1. no trap, and a refusal only for a missing header;
//  2. every byte after the header is accounted for: whole records + damaged bytes + torn tail
//     = the file's length after the header;
//  3. every entry decoded re-encodes to a record that occurs in the input at a position not
//     inside damage (what is kept was written, byte for byte);
//  4. valid records around the garbage survive it: a record written before and one written
//     after the input are both decoded, in order (a torn or damaged middle never hides the
//     records appended after it);
//  5. the same bytes decode the same way twice.
import BandReader

let before = SpoolEntry.battery(percent: 42, time: 1_796_032_800)
let after = SpoolEntry.minute(LiveMinute(start: 1_796_032_860, utcOffsetSeconds: 3600))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))

    // 1–3, 5: the bytes as the records of a spool file.
    let file = SpoolFile.header + input
    guard let contents = try? SpoolFile.decode(file) else { fatalError("a file with the header was refused") }
    var recordBytes = 0
    for entry in contents.entries {
        let record = SpoolFile.encode(entry)
        recordBytes += record.count
        guard contains(file, record) else { fatalError("decoded \(entry), which the input does not hold") }
    }
    guard recordBytes + contents.damagedBytes + contents.tornTailBytes == input.count else {
        fatalError("bytes unaccounted for: \(recordBytes) in records, \(contents.damagedBytes) damaged, \(contents.tornTailBytes) torn, of \(input.count)")
    }
    guard (try? SpoolFile.decode(file)) == contents else { fatalError("decoding is not deterministic") }

    // 1: without the header it is not a spool, unless the input starts with one.
    if (try? SpoolFile.decode(input)) != nil, !input.starts(with: SpoolFile.header) { fatalError("a file without the header was read") }

    // 4: valid records around the input.
    let spliced = SpoolFile.header + SpoolFile.encode(before) + input + SpoolFile.encode(after)
    guard let around = try? SpoolFile.decode(spliced) else { fatalError("a file with the header was refused") }
    guard around.entries.first == before else { fatalError("the record before the input was lost") }
    guard around.entries.last == after else { fatalError("the record after the input was lost: \(around)") }
    return 0
}

func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard needle.count <= haystack.count else { return false }
    for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
        if haystack[start..<start + needle.count].elementsEqual(needle) { return true }
    }
    return false
}
