import BandATT
import BandGATTServer
import FirmwareCrypto
import UARTFraming

/// The chip's firmware runtime on any ``Board``: UART bytes in → frames (``UARTFrameDecoder``) → ATT
/// PDUs answered by the shared ``GATTServer`` over ``BoardAttributeSource``, link messages
/// (``LinkMessage``) acted on, answers framed back out. State lives in this value (the MCU keeps
/// it in a static), the response and frame buffers on the stack (their depth is in the stack
/// high-water mark); nothing is allocated after ``start()``.
///
/// Decisions take no I/O of their own: ``poll()`` drains what the board has received and
/// transmits what is owed; ``run()`` is the MCU's main loop (poll, then sleep until an interrupt).
/// The band's own logic rides along as the ``FirmwareApplication`` `A`: link messages 0x10…0x3F
/// go to it, and it runs on every poll.
public struct FirmwareRuntime<B: Board, A: FirmwareApplication> {
    public var board: B
    public var application: A
    public private(set) var source = BoardAttributeSource()
    private var decoder = UARTFrameDecoder()
    private var server = GATTServer(serverMTU: FirmwareRuntime.serverMTU, mtu: ATT.defaultLEMTU, answersReadMultiple: false)
    private var drbg: HMACDRBG?
    private var attPDUs: UInt32 = 0
    private var allocationsAtStartUp: UInt32 = 0
    /// This boot's record in flash and what recovering it found (reported by message 0x86).
    public private(set) var bootRecord = BootRecord(sequence: 0, bootCount: 0)
    public private(set) var bootDamagedPages: UInt32 = 0
    /// What the application recovered from its flash pages at boot (message 0x86).
    public private(set) var applicationFlash = FlashRecoveryReport()
    /// A status request seen while the decoder is out of `self` (during ``poll()``): answered once
    /// the byte is decoded, so the counters it reports include the request's own frame.
    private var statusRequested = false

    /// ATT_MTU the bring-up image offers (the BLE 4.2 data-length maximum payload less L2CAP).
    public static var serverMTU: Int { 247 }

    public init(board: B, application: A) {
        self.board = board
        self.application = application
    }

    /// Announces the firmware to the host and takes the allocation baseline: from here on the
    /// allocation counter must not move.
    public mutating func start() {
        let boot = BootRecord.boot(on: &board)
        bootRecord = boot.record
        bootDamagedPages = boot.recovery.damagedPages
        applicationFlash = application.start(bootCount: bootRecord.bootCount, board: &board)
        allocationsAtStartUp = board.heapAllocationCount()
        send(.link, code: LinkMessage.booted)
        sendFlashReport()
    }

    /// Message 0x86: boot count, damaged boot-record pages, minute records recovered, damaged
    /// slots skipped, next sequence number, the newest record's minute start (each 4 bytes LE).
    private mutating func sendFlashReport() {
        var body: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (
            bootRecord.bootCount.littleEndian, bootDamagedPages.littleEndian, applicationFlash.records.littleEndian,
            applicationFlash.damagedSlots.littleEndian, applicationFlash.nextSequence.littleEndian,
            applicationFlash.newestMinuteStart.littleEndian)
        withUnsafeBytes(of: &body) { send(.debug, code: LinkMessage.flashReport, $0) }
    }

    /// The MCU's main loop.
    public mutating func run() -> Never {
        while true {
            poll()
            board.waitForEvent()
        }
    }

    /// Decodes every byte the board holds and answers each whole frame, then lets the application
    /// do what is due.
    public mutating func poll() {
        var decoder = self.decoder   // moved out: the frame handler below mutates self
        while let byte = board.receiveByte() {
            decoder.decode(byte: byte) { channel, payload in handle(channel, payload) }
            if statusRequested {
                statusRequested = false
                sendStatus(status(counters: decoder.counters))
            }
        }
        self.decoder = decoder
        application.poll(board: &board)
    }

    /// The counters as the status message reports them.
    public mutating func status() -> FirmwareStatus { status(counters: decoder.counters) }

    private mutating func status(counters: UARTFrameDecoder.Counters) -> FirmwareStatus {
        var status = FirmwareStatus()
        status.uptimeMilliseconds = board.uptimeMilliseconds()
        status.frames = counters.frames
        status.discardedBytes = counters.discardedBytes
        status.headerCheckFailures = counters.headerCheckFailures
        status.crcFailures = counters.crcFailures &+ counters.oversizeLengths
        status.attPDUs = attPDUs
        status.heapAllocations = board.heapAllocationCount()
        status.heapAllocationsAfterStartUp = status.heapAllocations &- allocationsAtStartUp
        status.stackHighWaterBytes = board.stackHighWaterBytes()
        return status
    }

    // MARK: - Frames in

    private mutating func handle(_ channel: UARTChannel, _ payload: UnsafeRawBufferPointer) {
        if channel == .att {
            answerATT(payload)
        } else if channel == .link, let code = payload.first {
            handleLink(code, UnsafeRawBufferPointer(rebasing: payload[1...]))
        }
        // Debug frames and unknown channels from the host are counted as frames and ignored.
    }

    private mutating func answerATT(_ pdu: UnsafeRawBufferPointer) {
        attPDUs &+= 1
        if application.receivedATT(pdu, board: &board) { return }
        guard B.answersBringUpRequests else { return log("att: no bring-up table on this port") }
        var response = InlineArray<247, UInt8>(repeating: 0)   // serverMTU
        var span = response.mutableSpan
        span.withUnsafeMutableBytes { output in
            let result = server.handle(pdu, source: &source, into: UnsafeMutableRawBufferPointer(rebasing: output[0..<server.mtu]))
            if result.responseLength > 0 {
                send(.att, UnsafeRawBufferPointer(rebasing: output[0..<result.responseLength]))
            }
        }
    }

    private mutating func handleLink(_ code: UInt8, _ body: UnsafeRawBufferPointer) {
        switch code {
        case LinkMessage.seed:
            guard body.count == LinkMessage.seedByteCount else { return log("seed: not 48 bytes") }
            drbg = try? HMACDRBG(entropy: UnsafeRawBufferPointer(rebasing: body[0..<32]),
                                 nonce: UnsafeRawBufferPointer(rebasing: body[32..<48]))
        case LinkMessage.connect, LinkMessage.disconnect:
            server = GATTServer(serverMTU: Self.serverMTU, mtu: ATT.defaultLEMTU, answersReadMultiple: false)
            source = BoardAttributeSource()
            application.linkChanged(connected: code == LinkMessage.connect, board: &board)
        case LinkMessage.statusRequest:
            statusRequested = true
        case LinkMessage.randomRequest:
            sendRandom(count: body.first.map(Int.init) ?? 0)
        case LinkMessage.selfTestRequest where B.answersBringUpRequests:
            var result = InlineArray<1, UInt8>(repeating: SelfTest.run())
            var span = result.mutableSpan
            span.withUnsafeMutableBytes { send(.debug, code: LinkMessage.selfTest, UnsafeRawBufferPointer($0)) }
        case LinkMessage.speed:
            let factor = body.count == 2 ? UInt32(body[0]) | UInt32(body[1]) << 8 : 0
            guard factor >= 1, factor <= LinkMessage.maximumSpeed else { return log("speed: not 1...3600") }
            board.setBandSpeed(factor)
        case LinkMessage.flashReportRequest:
            sendFlashReport()
        case LinkMessage.benchRequest where B.answersBringUpRequests:
            var results = InlineArray<20, UInt8>(repeating: 0)
            let cycles = OnChipBench.run(board: &board)
            for operation in 0..<OnChipBench.operationCount {
                for byte in 0..<4 { results[operation * 4 + byte] = UInt8(truncatingIfNeeded: cycles[operation] >> UInt32(8 * byte)) }
            }
            var span = results.mutableSpan
            span.withUnsafeMutableBytes { send(.debug, code: LinkMessage.bench, UnsafeRawBufferPointer($0)) }
        case LinkMessage.fault:
            board.provokeFault()
        case LinkMessage.reset:
            board.systemReset()
        default:
            switch application.received(link: code, body, board: &board) {
            case .unknown: log("link: unknown message")
            case .handled: break
            case .startUpComplete: allocationsAtStartUp = board.heapAllocationCount()
            }
        }
    }

    private mutating func sendRandom(count: Int) {
        var bytes = InlineArray<64, UInt8>(repeating: 0xFF)
        var span = bytes.mutableSpan
        span.withUnsafeMutableBytes { raw in
            guard count >= 1, count <= LinkMessage.maximumRandomRequest, drbg != nil,
                  (try? drbg!.generate(into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<count]))) != nil else {
                send(.debug, code: LinkMessage.random, UnsafeRawBufferPointer(rebasing: raw[0..<1]))
                return
            }
            send(.debug, code: LinkMessage.random, UnsafeRawBufferPointer(rebasing: raw[0..<count]))
        }
    }

    // MARK: - Frames out

    private mutating func sendStatus(_ status: FirmwareStatus) {
        var bytes = InlineArray<40, UInt8>(repeating: 0)   // FirmwareStatus.byteCount
        var span = bytes.mutableSpan
        span.withUnsafeMutableBytes { raw in
            status.encode(into: raw)
            send(.debug, code: LinkMessage.status, UnsafeRawBufferPointer(raw))
        }
    }

    private mutating func send(_ channel: UARTChannel, code: UInt8) {
        send(channel, code: code, UnsafeRawBufferPointer(start: nil, count: 0))
    }

    private mutating func send(_ channel: UARTChannel, code: UInt8, _ body: UnsafeRawBufferPointer) {
        FirmwareOutput.send(channel, code: code, body, on: &board)
    }

    private mutating func send(_ channel: UARTChannel, _ payload: UnsafeRawBufferPointer) {
        FirmwareOutput.send(channel, payload, on: &board)
    }

    /// A log line from the board, as a debug frame (0x84 + the text).
    public mutating func log(_ message: StaticString) { FirmwareOutput.log(message, on: &board) }
}

extension FirmwareRuntime where A == NoApplication {
    /// The core alone.
    public init(board: B) { self.init(board: board, application: NoApplication()) }
}
