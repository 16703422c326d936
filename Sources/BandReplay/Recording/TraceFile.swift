import BandLink
import BandTrace

#if canImport(Glibc)
import Glibc
#endif

/// One btsnoop file that ``TraceRecorder``s write connections into, each with the next HCI
/// connection handle (0x0040, 0x0041, …), so a reader that reconnects leaves one trace.
///
/// Single-threaded like the links it records. ``close()`` flushes and closes the file; until
/// then every finished connection is flushed, so a crash loses at most the connection in
/// progress.
public final class TraceFile {
    public let path: String
    let writer: BtsnoopWriter
    let clock: () -> Int64
    private var nextHandle: UInt16

    /// Creates (truncating) `path`. `clock` gives Unix microseconds (default: the wall clock).
    public init(path: String, datalink: BtsnoopDatalink = .h4,
                firstConnectionHandle: UInt16 = TraceRecorder.defaultConnectionHandle,
                clock: @escaping () -> Int64 = TraceRecorder.wallClockMicroseconds) throws(LinkError) {
        precondition(firstConnectionHandle <= 0x0EFF, "HCI connection handles are 0x0000–0x0EFF")
        self.path = path
        self.clock = clock
        nextHandle = firstConnectionHandle
        do throws(BtsnoopError) {
            writer = try BtsnoopWriter(path: path, datalink: datalink)
        } catch {
            throw Self.linkError(error, path: path)
        }
    }

    func allocateConnectionHandle() -> UInt16 {
        defer { nextHandle = nextHandle >= 0x0EFF ? 0x0001 : nextHandle + 1 }
        return nextHandle
    }

    /// Flushes and closes the file. Idempotent.
    public func close() throws(LinkError) {
        do throws(BtsnoopError) { try writer.close() } catch { throw Self.linkError(error, path: path) }
    }

    static func linkError(_ error: BtsnoopError, path: String) -> LinkError {
        if case .system(let call, let errno) = error.kind { return .system(call: "\(call) \(path)", errno: errno) }
        return .system(call: "record \(path): \(error)", errno: EIO)
    }
}
