#if canImport(Glibc)
import Glibc
#endif
import CommandKit

/// `bandsim serve --truth FILE`: the band's (or peer's, or firmware's) minute records as NDJSON,
/// one line per minute, flushed as it is written so a test can read the file while the band
/// runs. One writer for the three serve modes (the Linux band, `--profile`, `--firmware`).
final class TruthFile {
    let path: String
    private let output: BufferedOutput

    /// Creates or truncates `path`; exit 1 naming it when it cannot be opened.
    init(path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw RuntimeFailure("bandsim serve: --truth \(path): \(String(cString: strerror(errno)))") }
        self.path = path
        output = BufferedOutput(fileDescriptor: fd, capacity: 1 << 16)
    }

    deinit {
        try? output.flush()
        close(output.fileDescriptor)
    }

    /// One line; `flush: false` batches (the records a band holds at start), ``flush()`` after.
    /// A write error is reported on stderr, naming the file, and serving goes on.
    func write(_ line: String, flush: Bool = true) {
        output.append(line)
        do throws(OutputError) {
            try output.endLine()
            if flush { try output.flush() }
        } catch {
            CommandRunner.printError("bandsim serve: --truth \(path): \(error)")
        }
    }

    /// Writes what ``write(_:flush:)`` batched; exit 1 naming the file when it cannot.
    func flush() throws {
        do throws(OutputError) { try output.flush() } catch {
            throw RuntimeFailure("bandsim serve: --truth \(path): \(error)")
        }
    }
}
