import ChipRuntime
import UARTFraming

/// The board the band's hosted image gives its bridge runtime (``FirmwareRuntime`` with
/// ``ChipBand``, unchanged): what the runtime would send on its UART goes to the debug port
/// (UART1) instead — link and debug frames as they are (the truth's 0x87, the flash report, log
/// lines) — except the band's ATT frames, which wait in ``outgoingATT`` for the Bluetooth host;
/// what it would read comes from the debug port, where the band's configuration (link messages
/// 0x09, 0x10, …) arrives. Everything else is the chip's own board.
public struct HostedBandBoard<B: Board>: Board {
    public var base: B
    /// The band's ATT PDUs, for ``HostedBand`` to hand to the host as its credits allow.
    public var outgoingATT: PDUQueue
    /// The band dropped its link itself (it sent link message 0x89): the radio link must go.
    public var linkDropRequested = false
    private var decoder = UARTFrameDecoder()

    /// Bytes of the band's ATT PDUs waiting at most: two steps of the band (each at most
    /// ``ChipLinkHost/outboxCapacity`` of frames).
    public static var outgoingCapacity: Int { 2 * ChipLinkHost.outboxCapacity }

    public init(base: B) {
        self.base = base
        outgoingATT = PDUQueue(capacity: Self.outgoingCapacity)
    }

    public mutating func transmit(_ bytes: UnsafeRawBufferPointer) {
        var decoder = self.decoder   // moved out: the frame handler below mutates self
        decoder.decode(bytes) { channel, payload in route(channel, payload) }
        self.decoder = decoder
    }

    private mutating func route(_ channel: UARTChannel, _ payload: UnsafeRawBufferPointer) {
        if channel == .att {
            outgoingATT.append(payload)
            return
        }
        if channel == .link, payload.first == LinkMessage.linkDropped { linkDropRequested = true }
        Self.sendDebugFrame(channel, payload, on: &base)
    }

    /// `payload` framed on `channel` out of `board`'s debug port.
    public static func sendDebugFrame(_ channel: UARTChannel, _ payload: UnsafeRawBufferPointer, on board: inout B) {
        var frame = InlineArray<528, UInt8>(repeating: 0)   // ≥ UARTFrame.maximumFrameByteCount
        var span = frame.mutableSpan
        span.withUnsafeMutableBytes { raw in
            if let written = UARTFrame.encode(channel: channel, payload: payload, into: raw) {
                board.debugWrite(UnsafeRawBufferPointer(rebasing: raw[0..<written]))
            }
        }
    }

    /// `text` as a log message (debug 0x84) out of `board`'s debug port, so the port carries
    /// frames only.
    public static func sendLog(_ text: UnsafeRawBufferPointer, on board: inout B) {
        var message = InlineArray<97, UInt8>(repeating: LinkMessage.log)   // code + DebugLine.capacity
        let length = 1 + min(text.count, 96)
        for index in 1..<length { message[index] = text[index - 1] }
        var span = message.mutableSpan
        span.withUnsafeMutableBytes { sendDebugFrame(.debug, UnsafeRawBufferPointer(rebasing: $0[0..<length]), on: &board) }
    }

    /// The debug port carries the band's configuration and frames, not the bring-up image's
    /// services: ATT is the Bluetooth host's, and the band's image has no bench or self-test.
    public static var answersBringUpRequests: Bool { false }

    public mutating func receiveByte() -> UInt8? { base.debugReceiveByte() }
    public mutating func debugWrite(_ bytes: UnsafeRawBufferPointer) {
        let text = bytes.last == 0x0A ? UnsafeRawBufferPointer(rebasing: bytes[0..<(bytes.count - 1)]) : bytes
        Self.sendLog(text, on: &base)
    }

    public mutating func uptimeMilliseconds() -> UInt64 { base.uptimeMilliseconds() }
    public mutating func setBandSpeed(_ factor: UInt32) {
        bandSpeed = factor
        base.setBandSpeed(factor)
    }
    /// Band milliseconds per real millisecond (link 0x09), for the host's real-time clock.
    public private(set) var bandSpeed: UInt32 = 1
    public mutating func cycleCount() -> UInt64 { base.cycleCount() }
    public mutating func waitForEvent() { base.waitForEvent() }
    public mutating func heapAllocationCount() -> UInt32 { base.heapAllocationCount() }
    public mutating func stackHighWaterBytes() -> UInt32 { base.stackHighWaterBytes() }
    public mutating func provokeFault() { base.provokeFault() }
    public mutating func systemReset() { base.systemReset() }
    public var flashPageSize: Int { base.flashPageSize }
    public var flashPageCount: Int { base.flashPageCount }
    public mutating func flashRead(page: Int, offset: Int, into output: UnsafeMutableRawBufferPointer) {
        base.flashRead(page: page, offset: offset, into: output)
    }
    public mutating func flashErase(page: Int) { base.flashErase(page: page) }
    public mutating func flashProgram(page: Int, offset: Int, _ bytes: UnsafeRawBufferPointer) {
        base.flashProgram(page: page, offset: offset, bytes)
    }
}
