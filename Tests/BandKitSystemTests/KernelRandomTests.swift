import Foundation
import BandKitSystem
import Testing

@Suite struct KernelRandomTests {
    @Test func fillsEveryByteOfSmallAndLargeBuffers() throws {
        for size in [1, 16, 4096, 1 << 20] {
            let a = try KernelRandom.bytes(count: size)
            let b = try KernelRandom.bytes(count: size)
            #expect(a.count == size)
            if size >= 16 {
                #expect(a != b, "two draws of \(size) bytes differ")
                // A megabyte of zeros at the end would mean a short read left unfilled.
                #expect(a.suffix(16) != [UInt8](repeating: 0, count: 16) || b.suffix(16) != [UInt8](repeating: 0, count: 16))
            }
        }
        #expect(try KernelRandom.bytes(count: 0) == [])
    }

    @Test func byteValuesAreSpreadOverTheWholeRange() throws {
        var counts = [Int](repeating: 0, count: 256)
        for byte in try KernelRandom.bytes(count: 256 * 400) { counts[Int(byte)] += 1 }
        // Expected 400 each; a 6-sigma band (±120) fails only for a broken source.
        #expect(counts.allSatisfy { (280...520).contains($0) }, "\(counts.min()!)…\(counts.max()!)")
    }

    /// The one-source rule: no other module reads the kernel's pool or OpenSSL's DRBG itself.
    @Test func noOtherModuleHasItsOwnRandomSource() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var offenders: [String] = []
        for directory in ["Sources", "firmware-sim/Sources"] {
            let base = root.appendingPathComponent(directory)
            guard let files = FileManager.default.enumerator(atPath: base.path) else { continue }
            for case let file as String in files where file.hasSuffix(".swift") && !file.hasPrefix("System/") {
                let text = try String(contentsOf: base.appendingPathComponent(file), encoding: .utf8)
                for needle in ["\"/dev/urandom\"", "\"/dev/random\"", "RAND_bytes(", "getrandom"] where text.contains(needle) {
                    offenders.append("\(directory)/\(file): \(needle)")
                }
            }
        }
        #expect(offenders == [])
    }
}
