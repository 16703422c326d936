/// Streaming decoder for ``UARTFrame``: bytes in as they arrive (one at a time from a UART
/// interrupt, or a read's worth on the host), whole frames out. Fixed buffer, no heap.
///
/// Resynchronisation: when the bytes at the front cannot start a frame (no sync byte, a header
/// check that fails, a length over ``UARTFrame/maximumPayload``, a trailer CRC that fails), the
/// decoder drops one byte and looks for the next sync byte among the bytes it holds — so a good
/// frame that begins inside garbage or inside a damaged frame is still found. Each dropped byte is
/// counted. Work per byte is bounded by one frame's CRC (≤ ``UARTFrame/maximumFrameByteCount``).
public struct UARTFrameDecoder {
    /// Counters the firmware reports over the debug channel and the host prints.
    public struct Counters: Equatable {
        public var frames: UInt32 = 0
        /// Bytes dropped while looking for a frame.
        public var discardedBytes: UInt32 = 0
        public var headerCheckFailures: UInt32 = 0
        public var oversizeLengths: UInt32 = 0
        public var crcFailures: UInt32 = 0
        public init() {}
    }

    public private(set) var counters = Counters()
    private var buffer: InlineArray<528, UInt8>   // ≥ UARTFrame.maximumFrameByteCount (524)
    private var count = 0

    public init() { buffer = .init(repeating: 0) }

    /// Bytes held waiting for the rest of a frame. Every byte fed is in exactly one of: a delivered
    /// frame, ``Counters/discardedBytes``, or this count.
    public var bufferedByteCount: Int { count }

    /// Feeds `bytes`; calls `onFrame(channel, payload)` for each whole, checked frame, in order.
    /// The payload pointer is valid only during the call.
    public mutating func decode(
        _ bytes: UnsafeRawBufferPointer, onFrame: (UARTChannel, UnsafeRawBufferPointer) -> Void
    ) {
        for byte in bytes { decode(byte: byte, onFrame: onFrame) }
    }

    /// Feeds one byte (the firmware's UART receive path).
    public mutating func decode(byte: UInt8, onFrame: (UARTChannel, UnsafeRawBufferPointer) -> Void) {
        if count == 0 && byte != UARTFrame.sync {
            counters.discardedBytes &+= 1
            return
        }
        buffer[count] = byte
        count += 1
        drain(onFrame: onFrame)
    }

    /// Parses frames at the front of the buffer until it needs more bytes.
    private mutating func drain(onFrame: (UARTChannel, UnsafeRawBufferPointer) -> Void) {
        while count > 0 {
            switch frontFrame() {
            case .needMoreData:
                return
            case .bad:
                dropFrontAndResync()
            case .frame(let payloadLength):
                let channel = UARTChannel(rawValue: buffer[1])
                counters.frames &+= 1
                var span = buffer.mutableSpan
                span.withUnsafeMutableBytes { raw in
                    onFrame(channel, UnsafeRawBufferPointer(rebasing: raw[UARTFrame.headerByteCount..<(UARTFrame.headerByteCount + payloadLength)]))
                }
                removeFront(UARTFrame.headerByteCount + payloadLength + UARTFrame.trailerByteCount)
            }
        }
    }

    private enum Front { case needMoreData, bad, frame(payloadLength: Int) }

    /// What the bytes at the front are; buffer[0] is always the sync byte here.
    private mutating func frontFrame() -> Front {
        guard count >= UARTFrame.headerByteCount else { return .needMoreData }
        guard CRC8.checksum(buffer[1], buffer[2], buffer[3]) == buffer[4] else {
            counters.headerCheckFailures &+= 1
            return .bad
        }
        let length = Int(buffer[2]) | Int(buffer[3]) << 8
        guard length <= UARTFrame.maximumPayload else {
            counters.oversizeLengths &+= 1
            return .bad
        }
        let total = UARTFrame.headerByteCount + length + UARTFrame.trailerByteCount
        guard count >= total else { return .needMoreData }
        var crc = CRC16()
        for index in 1..<(total - 2) { crc.update(buffer[index]) }
        guard UInt16(buffer[total - 2]) | UInt16(buffer[total - 1]) << 8 == crc.value else {
            counters.crcFailures &+= 1
            return .bad
        }
        return .frame(payloadLength: length)
    }

    /// Drops the sync byte at the front and everything up to the next sync byte held.
    private mutating func dropFrontAndResync() {
        var next = 1
        while next < count && buffer[next] != UARTFrame.sync { next += 1 }
        counters.discardedBytes &+= UInt32(next)
        removeFront(next)
    }

    private mutating func removeFront(_ n: Int) {
        for index in 0..<(count - n) { buffer[index] = buffer[index + n] }
        count -= n
        // Bytes after a removed frame may not begin with a sync byte: skip to the next one.
        var skip = 0
        while skip < count && buffer[skip] != UARTFrame.sync { skip += 1 }
        if skip > 0 {
            counters.discardedBytes &+= UInt32(skip)
            for index in 0..<(count - skip) { buffer[index] = buffer[index + skip] }
            count -= skip
        }
    }
}
