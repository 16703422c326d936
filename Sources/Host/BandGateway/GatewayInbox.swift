import BandKitSystem
import Synchronization

/// What the session threads tell the loop, queued under a lock; one byte in a pipe wakes the
/// loop's `poll()` (the self-pipe trick, as `StopSignals` does for signals).
final class GatewayInbox: Sendable {
    enum Message: Sendable {
        /// The device's link came up.
        case connected(address: String)
        /// Its session authenticated, streamed or committed history: the backoff starts over.
        case progressed(address: String)
        /// Its session ended (error nil: as asked).
        case ended(address: String, error: String?)
    }

    let pollDescriptor: Int32
    private let writeEnd: Int32
    private let queue = Mutex<[Message]>([])

    init() throws(Errno) {
        switch SystemCalls.live.nonBlockingPipe() {
        case .success(let ends):
            pollDescriptor = ends.read
            writeEnd = ends.write
        case .failure(let error): throw error
        }
    }

    func post(_ message: Message) {
        let wasEmpty = queue.withLock { queue in
            queue.append(message)
            return queue.count == 1
        }
        // One wake-up per batch: the loop takes the whole queue when it wakes.
        guard wasEmpty else { return }
        var byte: UInt8 = 1
        _ = withUnsafeBytes(of: &byte) { SystemCalls.live.write(writeEnd, $0) }
    }

    /// Everything posted since the last call; drains the pipe.
    func take() -> [Message] {
        var buffer = [UInt8](repeating: 0, count: 64)
        while case .success(let count) = buffer.withUnsafeMutableBytes({ SystemCalls.live.read(pollDescriptor, into: $0) }), count > 0 {}
        return queue.withLock { queue in
            defer { queue.removeAll(keepingCapacity: true) }
            return queue
        }
    }

    func close() {
        _ = SystemCalls.live.close(descriptor: pollDescriptor)
        _ = SystemCalls.live.close(descriptor: writeEnd)
    }
}
