#if canImport(Glibc)
import Glibc
#endif
import AppleHealth
import BandKitSystem
import CommandKit
import Foundation
import HealthModel
import HealthStore

/// `health import export.zip|export.xml`: the Apple Health parser's items saved in one transaction.
struct AppleHealthImport {
    enum Kind { case ndjson, xml, zip }

    let descriptor: Int32
    let name: String
    let isZip: Bool
    let storePath: StoreChoice

    /// What the file is: `--format`, else its first bytes (`PK\3\4` a zip, `<` XML, else NDJSON).
    /// Standard input is NDJSON unless `--format apple-health` (then XML; a zip needs a file).
    static func detect(descriptor: Int32, isStandardInput: Bool, format: ImportCommand.Format?) throws -> Kind {
        if isStandardInput { return format == .appleHealth ? .xml : .ndjson }
        var head = [UInt8](repeating: 0, count: 64)
        let count = head.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress!, 64, 0) }
        let bytes = head.prefix(max(0, count))
        if bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]) || bytes.starts(with: [0x50, 0x4B, 0x05, 0x06]) { return .zip }
        if format == .json { return .ndjson }
        let firstText = bytes.drop(while: { [0xEF, 0xBB, 0xBF, 0x20, 0x09, 0x0A, 0x0D].contains($0) }).first
        if firstText == UInt8(ascii: "<") { return .xml }
        return format == .appleHealth ? .xml : .ndjson
    }

    struct Counts {
        var inserted = 0, replaced = 0, unchanged = 0
        var workoutsNew = 0, workoutsKnown = 0
    }

    func run() throws -> ExitCode {
        let printable = name.terminalEscaped
        let store = try openStore(storePath)
        let parser = AppleHealthParser()
        var counts = Counts()
        let progress = ProgressBar(label: "importing \(printable)")
        defer { progress.finish() }
        do {
            try store.write(as: .owner) { transaction in
                let sink: (AppleHealthItem) throws -> Void = { item in
                    switch item {
                    case .quantity(let sample):
                        Self.count(try transaction.save(sample, attributedTo: sample.source ?? .owner), &counts)
                    case .category(let sample):
                        Self.count(try transaction.save(sample, attributedTo: sample.source ?? .owner), &counts)
                    case .workout(let workout):
                        if case .inserted = try transaction.save(workout, attributedTo: workout.source ?? .owner) {
                            counts.workoutsNew += 1
                        } else {
                            counts.workoutsKnown += 1
                        }
                    case .characteristics(let settings):
                        for setting in settings { try transaction.setCharacteristic(setting.type, setting.value) }
                    }
                }
                if isZip {
                    let directory = try ZipDirectory(descriptor: descriptor, name: name)
                    guard let member = directory.exportXML else {
                        let names = directory.members.prefix(10).map(\.name).joined(separator: ", ")
                        throw AppleHealthError(.zip, place: name, "has no export.xml member (members: \(names.isEmpty ? "none" : names))")
                    }
                    let reader = try ZipMemberReader(descriptor: descriptor, directory: directory, member: member, archiveName: name)
                    progress.total = member.compressedSize
                    try reader.forEachPiece({ piece in try parser.parse(piece, final: false, into: sink) },
                                            progress: { progress.update($0) })
                } else {
                    var status = stat()
                    if fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG { progress.total = UInt64(status.st_size) }
                    let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
                    defer { chunk.deallocate() }
                    var total: UInt64 = 0
                    while true {
                        guard case .success(let count) = valueOrErrno({ read(descriptor, chunk.baseAddress!, chunk.count) }) else {
                            throw AppleHealthError(.io, place: name, "cannot read: \(Errno.current.reason)")
                        }
                        if count == 0 { break }
                        try parser.parse(UnsafeRawBufferPointer(rebasing: chunk[0..<count]), final: false, into: sink)
                        total += UInt64(count)
                        progress.update(total)
                    }
                }
                try parser.parse(UnsafeRawBufferPointer(start: nil, count: 0), final: true, into: sink)
            }
        } catch let error as AppleHealthError {
            progress.finish()
            let message = "health import: \(printable): \(error.description.terminalEscaped); nothing was imported"
            if error.isBadData { throw DataError(message) }
            throw RuntimeFailure(message)
        } catch let error as AppleHealthSinkError {
            progress.finish()
            let message = "health import: \(printable): \(error.place): \(String(describing: error.underlying).terminalEscaped); nothing was imported"
            if let storeError = error.underlying as? HealthStoreError {
                switch storeError {
                case .database, .file: throw RuntimeFailure(message)
                default: throw DataError(message)
                }
            }
            throw DataError(message)
        } catch {
            progress.finish()
            throw RuntimeFailure("health import: \(error); nothing was imported")
        }
        progress.finish()
        let summary = parser.summary
        let output = StandardOutput.shared
        output.line("imported \(counts.inserted + counts.replaced) records from \(printable) "
                    + "(\(counts.inserted) new, \(counts.replaced) replaced, \(counts.unchanged) already stored), "
                    + "\(counts.workoutsNew) workouts (\(counts.workoutsKnown) already stored), "
                    + "\(summary.characteristics) characteristics; skipped \(summary.skippedTotal)")
        for (kind, number) in summary.skipped.sorted(by: { ($0.value, $1.key) > ($1.value, $0.key) }) {
            output.line("  skipped \(number) \(kind.terminalEscaped)")
        }
        return .success
    }

    private static func count(_ outcome: SaveOutcome, _ counts: inout Counts) {
        switch outcome {
        case .inserted: counts.inserted += 1
        case .replaced: counts.replaced += 1
        case .unchanged: counts.unchanged += 1
        }
    }
}
