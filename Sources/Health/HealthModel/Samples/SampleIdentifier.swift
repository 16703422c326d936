#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FoundationEssentials
import Synchronization
import BandKitSystem

extension UUID {
    /// A UUID version 7 (RFC 9562 §5.7): 48-bit Unix milliseconds, then random bits.
    ///
    /// Samples default to time-ordered identifiers so that the store's unique index on ids
    /// grows at its right edge instead of taking random page splits on bulk imports.
    /// The random bits come from the kernel's CSPRNG (as RFC 9562 §6.9 asks), fetched 4 KiB
    /// at a time so that a bulk import does not make a system call per identifier.
    public static func timeOrdered(at date: Date = Date()) -> UUID {
        let milliseconds = UInt64(max(0, date.timeIntervalSince1970 * 1000))
        var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &value) { bytes in
            RandomBytePool.shared.fill(UnsafeMutableRawBufferPointer(rebasing: bytes[6...]))
            for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - index))) }
            bytes[6] = (bytes[6] & 0x0F) | 0x70  // version 7
            bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 9562 variant
        }
        return UUID(uuid: value)
    }
}

/// Bytes from BandKit's one random source (BandKitSystem's `KernelRandom`, the kernel CSPRNG)
/// handed out in small pieces; thread-safe.
final class RandomBytePool: Sendable {
    static let shared = RandomBytePool()

    private struct State {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var used = 4096
    }
    private let state = Mutex(State())

    func fill(_ target: UnsafeMutableRawBufferPointer) {
        state.withLock { state in
            if state.used + target.count > state.buffer.count {
                state.buffer.withUnsafeMutableBytes(Self.refill)
                state.used = 0
            }
            state.buffer.withUnsafeBytes { bytes in
                target.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[state.used..<(state.used + target.count)]))
            }
            state.used += target.count
        }
    }

    private static func refill(_ bytes: UnsafeMutableRawBufferPointer) {
        do throws(RandomSourceError) {
            try KernelRandom.fill(bytes)
        } catch {
            // The kernel refused (it does not, short of a broken sandbox): the standard
            // library's generator, which asks the same kernel source, 8 bytes a call, and traps
            // if that fails too rather than hand out predictable identifiers.
            var generator = SystemRandomNumberGenerator()
            for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: generator.next() as UInt64) }
        }
    }
}
