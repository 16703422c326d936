#if canImport(Glibc)
import Glibc
#endif
import BandKitSystem

/// The container formats BandKit reads traces from, told apart by their first four bytes.
///
/// | first bytes | format |
/// |---|---|
/// | `62 74 73 6E` ("btsn", of "btsnoop\0") | btsnoop |
/// | `0A 0D 0D 0A` (Section Header Block type) | pcapng |
/// | `A1 B2 C3 D4`, `D4 C3 B2 A1`, `A1 B2 3C 4D`, `4D 3C B2 A1` | pcap (µs / ns, either order) |
public enum TraceFileFormat: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case btsnoop
    case pcapng
    case pcap

    public var description: String { rawValue }

    /// The format whose magic `prefix` starts with, or nil.
    public static func detect(prefix: UnsafeRawBufferPointer) -> TraceFileFormat? {
        guard prefix.count >= 4 else { return nil }
        let word = UInt32(prefix[0]) << 24 | UInt32(prefix[1]) << 16 | UInt32(prefix[2]) << 8 | UInt32(prefix[3])
        switch word {
        case 0x6274_736E: return .btsnoop
        case 0x0A0D_0D0A: return .pcapng
        case 0xA1B2_C3D4, 0xD4C3_B2A1, 0xA1B2_3C4D, 0x4D3C_B2A1: return .pcap
        default: return nil
        }
    }

    /// The format of the file at `path`, from its first four bytes. A file that is not a
    /// regular file (a pipe) cannot be peeked at without losing its bytes: btsnoop is assumed
    /// (as before pcapng was read), and `--format` says otherwise. A regular file with no
    /// known magic is also left to the btsnoop reader, whose error then says what it is not.
    /// Nil only when the file cannot be opened (the reader then reports why).
    public static func detect(path: String) -> TraceFileFormat? {
        let calls = SystemCalls.live
        guard case .success(let fd) = calls.open(path: path, flags: O_RDONLY) else { return nil }
        defer { _ = calls.close(descriptor: fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return .btsnoop }
        var bytes: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
        return withUnsafeMutableBytes(of: &bytes) { buffer -> TraceFileFormat in
            var filled = 0
            while filled < 4 {
                guard case .success(let n) = calls.read(fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...])),
                      n > 0 else { break }
                filled += n
            }
            return detect(prefix: UnsafeRawBufferPointer(rebasing: buffer[0..<filled])) ?? .btsnoop
        }
    }
}
