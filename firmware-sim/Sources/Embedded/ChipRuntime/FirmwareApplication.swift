import UARTFraming

/// What runs on the firmware core besides its own link handling: the band's logic
/// (BandFirmwareCore's `ChipBand`) on the image, ``NoApplication`` in the core's own tests.
/// ``FirmwareRuntime`` is generic over it (no existentials, Embedded Swift), hands it the link
/// messages it does not handle itself (codes 0x10…0x3F are the application's) and calls
/// ``poll(board:)`` on every pass of its loop.
public protocol FirmwareApplication {
    /// The firmware has booted (boot count `bootCount`, from the boot record): recover what the
    /// application keeps in flash, without allocating, and say what was found (message 0x86).
    mutating func start<B: Board>(bootCount: UInt32, board: inout B) -> FlashRecoveryReport
    /// A link message with a code the core does not handle. The application sends its answers
    /// itself (``FirmwareOutput``).
    mutating func received<B: Board>(link code: UInt8, _ body: UnsafeRawBufferPointer, board: inout B) -> ApplicationLinkResult
    /// Band time may have moved on: do what is due (at most a bounded amount per call).
    mutating func poll<B: Board>(board: inout B)
    /// An ATT PDU from the reader. True: the application served it (and sent its answers itself);
    /// false: the core's bring-up table (``BoardAttributeSource``) answers. Default: false.
    mutating func receivedATT<B: Board>(_ pdu: UnsafeRawBufferPointer, board: inout B) -> Bool
    /// Link message 0x02 (a reader connected: `true`) or 0x03 (it left). Default: nothing.
    mutating func linkChanged<B: Board>(connected: Bool, board: inout B)
}

extension FirmwareApplication {
    public mutating func receivedATT<B: Board>(_ pdu: UnsafeRawBufferPointer, board: inout B) -> Bool { false }
    public mutating func linkChanged<B: Board>(connected: Bool, board: inout B) {}
}

/// How the application took a link message.
public enum ApplicationLinkResult: Equatable {
    /// Not one of its codes: the core logs "link: unknown message".
    case unknown
    case handled
    /// Handled, and start-up is over: the message allocated the application's storage once (the
    /// band's minute ring, its scenario), so the core takes its allocation baseline again; from
    /// here on the counter must not move.
    case startUpComplete
}

extension FirmwareApplication {
    /// An application that keeps nothing in flash.
    public mutating func start<B: Board>(bootCount: UInt32, board: inout B) -> FlashRecoveryReport { FlashRecoveryReport() }
}

/// No application: the core alone (its host tests, the bring-up image).
public struct NoApplication: FirmwareApplication {
    public init() {}
    public mutating func received<B: Board>(link code: UInt8, _ body: UnsafeRawBufferPointer, board: inout B) -> ApplicationLinkResult {
        .unknown
    }
    public mutating func poll<B: Board>(board: inout B) {}
}

/// Frames out of the firmware, for the core and its application alike: one frame per call,
/// built on the stack (its depth is in the stack high-water mark), nothing allocated.
public enum FirmwareOutput {
    /// A frame carrying `payload` on `channel` (payloads over ``UARTFrame/maximumPayload`` are not sent).
    public static func send<B: Board>(_ channel: UARTChannel, _ payload: UnsafeRawBufferPointer, on board: inout B) {
        var frame = InlineArray<528, UInt8>(repeating: 0)   // ≥ UARTFrame.maximumFrameByteCount
        var span = frame.mutableSpan
        span.withUnsafeMutableBytes { raw in
            if let written = UARTFrame.encode(channel: channel, payload: payload, into: raw) {
                board.transmit(UnsafeRawBufferPointer(rebasing: raw[0..<written]))
            }
        }
    }

    /// A link/debug message: its code byte, then `body` (at most 71 bytes; longer is cut).
    public static func send<B: Board>(_ channel: UARTChannel, code: UInt8, _ body: UnsafeRawBufferPointer, on board: inout B) {
        var message = InlineArray<72, UInt8>(repeating: 0)
        message[0] = code
        let length = 1 + min(body.count, 71)
        for index in 1..<length { message[index] = body[index - 1] }
        var span = message.mutableSpan
        span.withUnsafeMutableBytes { raw in send(channel, UnsafeRawBufferPointer(rebasing: raw[0..<length]), on: &board) }
    }

    /// A log line as a debug frame (0x84 + the text).
    public static func log<B: Board>(_ message: StaticString, on board: inout B) {
        message.withUTF8Buffer { send(.debug, code: LinkMessage.log, UnsafeRawBufferPointer($0), on: &board) }
    }
}
