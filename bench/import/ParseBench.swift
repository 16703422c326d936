// Parse-only driver of bench/import: export.xml through AppleHealthParser with a sink that only
// counts, so the rate is the reader's alone (expat, attribute decoding, unit conversion, hashing,
// building the samples). Linked against the release objects of AppleHealth, HealthModel and
// BandKitSystem by bench/import/run.sh.
//
//   ParseBench export.xml
#if canImport(Glibc)
import Glibc
#endif
import AppleHealth

@main
struct ParseBench {
    static func main() throws {
        let arguments = CommandLine.arguments
        guard arguments.count == 2 else {
            fputs("usage: ParseBench export.xml\n", stderr)
            exit(64)
        }
        let descriptor = open(arguments[1], O_RDONLY)
        guard descriptor >= 0 else { fputs("cannot open \(arguments[1])\n", stderr); exit(1) }
        let parser = AppleHealthParser()
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        var items = 0
        var bytes = 0
        while true {
            let count = read(descriptor, chunk.baseAddress!, chunk.count)
            if count <= 0 { break }
            bytes += count
            try parser.parse(UnsafeRawBufferPointer(rebasing: chunk[0..<count]), final: false) { _ in items += 1 }
        }
        try parser.parse(UnsafeRawBufferPointer(start: nil, count: 0), final: true) { _ in items += 1 }
        let summary = parser.summary
        print("parsed \(bytes) bytes: \(summary.records) records, \(summary.workouts) workouts, \(items) items, skipped \(summary.skippedTotal)")
    }
}
