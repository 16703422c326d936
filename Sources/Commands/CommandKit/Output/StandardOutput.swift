#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's standard output: the one writer every command of `health`, `band`, `bandsim`
/// and `bandradio` prints through (no `print`, no `FileHandle.write`).
///
/// Lines are buffered in one ``BufferedOutput`` and written in large blocks; ``lineNow(_:)``
/// writes at once, for live output (a reading as it happens, a CI log interleaving processes).
/// A failed write is never silent: the first error is kept, like C's `ferror`, and thrown by
/// ``flush()``, which ``CommandRunner`` calls after every command, turning it into a message
/// on standard error and exit status 1 (`health export > /dev/full`: "No space left on
/// device"). A closed pipe still ends the process by `SIGPIPE`, as for any Unix filter.
///
/// Calls may come from several threads (a reader's callbacks); they are serialized.
public final class StandardOutput: @unchecked Sendable {
    /// File descriptor 1.
    public static let shared = StandardOutput(fileDescriptor: 1)

    /// The buffer itself, for formatters that write through ``OutputLine`` without a String
    /// per line (`bandsim decode`). Use from one thread, and call ``flush()`` at the end.
    public let buffer: BufferedOutput
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var firstError: OutputError?

    public init(fileDescriptor: Int32, capacity: Int = 256 * 1024) {
        buffer = BufferedOutput(fileDescriptor: fileDescriptor, capacity: capacity)
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    /// The first write error so far, if any (kept until ``flush()`` reports it).
    public var error: OutputError? { locked { firstError } }

    private func keep(_ error: OutputError) {
        if firstError == nil { firstError = error }
    }

    /// Appends `text` and a newline; written once the buffer fills or at ``flush()``.
    public func line(_ text: String) {
        locked {
            buffer.append(text)
            do throws(OutputError) { try buffer.endLine() } catch { keep(error) }
        }
    }

    /// Appends `text` without a newline.
    public func write(_ text: String) {
        locked { buffer.append(text) }
    }

    /// Writes `text` and a newline now, with whatever was buffered before it.
    public func lineNow(_ text: String) {
        locked {
            buffer.append(text)
            buffer.append(UInt8(ascii: "\n"))
            do throws(OutputError) { try buffer.flush() } catch { keep(error) }
        }
    }

    /// Writes out everything buffered; throws the first write error this output ever hit.
    public func flush() throws(OutputError) {
        let failure: OutputError? = locked {
            do throws(OutputError) { try buffer.flush() } catch { keep(error) }
            return firstError
        }
        if let failure { throw failure }
    }
}
