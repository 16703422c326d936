import Foundation
import Testing

/// The system layer is the only place that knows about `EINTR` or defines an errno type: every
/// other module reaches the kernel's error numbers through BandKitSystem's ``Errno`` and retries
/// interrupted calls through its `valueOrErrno`, so the rule is checked in the sources.
@Suite struct OneOfEachTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Lines of code (comments left out) in the package's Swift sources outside the system layer that match `test`.
    func offenders(_ test: (String) -> Bool) throws -> [String] {
        var found: [String] = []
        for directory in ["Sources", "firmware-sim/Sources"] {
            let base = Self.root.appendingPathComponent(directory)
            guard let files = FileManager.default.enumerator(atPath: base.path) else { continue }
            for case let file as String in files where file.hasSuffix(".swift") && !file.hasPrefix("System/") {
                let text = try String(contentsOf: base.appendingPathComponent(file), encoding: .utf8)
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    let code = line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
                    if test(code) { found.append("\(directory)/\(file):\(number + 1)") }
                }
            }
        }
        return found
    }

    @Test func noModuleOutsideTheSystemLayerRetriesEINTRByHand() throws {
        #expect(try offenders { $0.contains("EINTR") } == [])
    }

    @Test func noModuleOutsideTheSystemLayerDefinesItsOwnErrno() throws {
        #expect(try offenders { $0.contains("struct Errno") || $0.contains("enum Errno") } == [])
    }
}
