import ChipRuntime
import Foundation
import Testing
import UARTFraming

/// A board in memory: the host's bytes queued for the firmware, the firmware's bytes collected,
/// a clock the test sets, allocation and stack figures the test chooses.
struct ScriptedBoard: Board {
    var inbound: [UInt8] = []
    var outbound: [UInt8] = []
    var now: UInt64 = 0
    var allocations: UInt32 = 3
    var faults = 0

    mutating func uptimeMilliseconds() -> UInt64 { now }
    var speed: UInt32 = 1
    mutating func setBandSpeed(_ factor: UInt32) { speed = factor }
    /// Advances 6400 cycles per read: each timed operation (64 runs between two reads) averages 100.
    mutating func cycleCount() -> UInt64 { cycles += 6400; return cycles }
    var cycles: UInt64 = 0
    mutating func transmit(_ bytes: UnsafeRawBufferPointer) { outbound.append(contentsOf: bytes) }
    mutating func receiveByte() -> UInt8? { inbound.isEmpty ? nil : inbound.removeFirst() }
    mutating func waitForEvent() {}
    mutating func heapAllocationCount() -> UInt32 { allocations }
    mutating func stackHighWaterBytes() -> UInt32 { 1234 }
    mutating func provokeFault() { faults += 1 }
    var resets = 0
    mutating func systemReset() { resets += 1 }
    /// What the firmware wrote to its debug port (the hosted build's UART1).
    var debug: [UInt8] = []
    mutating func debugWrite(_ bytes: UnsafeRawBufferPointer) { debug.append(contentsOf: bytes) }
    /// What the debug port has received and not yet read (the hosted band's configuration).
    var debugInbound: [UInt8] = []
    mutating func debugReceiveByte() -> UInt8? { debugInbound.isEmpty ? nil : debugInbound.removeFirst() }

    /// FlashLayout.pageCount 4 KB pages with a chip's semantics (erase → 0xFF, program → old AND new).
    var flash = [UInt8](repeating: 0xFF, count: FlashLayout.pageCount * 4096)
    var flashPageSize: Int { 4096 }
    var flashPageCount: Int { flash.count / 4096 }
    mutating func flashRead(page: Int, offset: Int, into output: UnsafeMutableRawBufferPointer) {
        for index in 0..<output.count { output[index] = flash[page * 4096 + offset + index] }
    }
    mutating func flashErase(page: Int) {
        for index in 0..<4096 where powered() { flash[page * 4096 + index] = 0xFF }
    }
    mutating func flashProgram(page: Int, offset: Int, _ bytes: UnsafeRawBufferPointer) {
        for index in 0..<bytes.count where powered() { flash[page * 4096 + offset + index] &= bytes[index] }
    }

    /// Bytes the flash may still erase or program before the power fails (a reset in the middle
    /// of a write); nil: no limit. After it runs out nothing more reaches the flash.
    var flashByteBudget: Int?
    private mutating func powered() -> Bool {
        guard let budget = flashByteBudget else { return true }
        flashByteBudget = max(0, budget - 1)
        return budget > 0
    }
}

struct Frame: Equatable, CustomStringConvertible {
    var channel: UInt8
    var payload: [UInt8]
    var description: String { "ch\(channel) " + payload.map { String(format: "%02x", $0) }.joined() }
}

func encodeFrame(_ channel: UARTChannel, _ payload: [UInt8]) -> [UInt8] {
    var output = [UInt8](repeating: 0, count: UARTFrame.maximumFrameByteCount)
    let n = payload.withUnsafeBytes { p in output.withUnsafeMutableBytes { UARTFrame.encode(channel: channel, payload: p, into: $0) } }!
    return Array(output.prefix(n))
}

/// The host side of a conversation with the firmware core over the scripted board.
struct FirmwareConversation {
    var firmware = FirmwareRuntime(board: ScriptedBoard())
    private var hostDecoder = UARTFrameDecoder()

    init(flash: [UInt8]? = nil) {
        if let flash { firmware.board.flash = flash }
        firmware.start()
    }

    /// Sends one frame, polls the firmware, returns the frames it sent back.
    mutating func send(_ channel: UARTChannel, _ payload: [UInt8]) -> [Frame] {
        sendRaw(encodeFrame(channel, payload))
    }

    mutating func sendRaw(_ bytes: [UInt8]) -> [Frame] {
        firmware.board.inbound.append(contentsOf: bytes)
        firmware.poll()
        return takeFrames()
    }

    mutating func takeFrames() -> [Frame] {
        let bytes = firmware.board.outbound
        firmware.board.outbound.removeAll()
        var frames: [Frame] = []
        bytes.withUnsafeBytes { raw in
            hostDecoder.decode(raw) { channel, payload in frames.append(Frame(channel: channel.rawValue, payload: Array(payload))) }
        }
        return frames
    }

    /// An ATT request and the one response the firmware must answer with (hex, spaces allowed).
    mutating func exchange(_ request: String, _ response: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let reply = send(.att, hex(request))
        #expect(reply == [Frame(channel: 1, payload: hex(response))], "request \(request)", sourceLocation: sourceLocation)
    }

    /// Sends `payload` on `channel`; the firmware must answer with exactly `expected`.
    mutating func expectReply(_ channel: UARTChannel, _ payload: [UInt8], _ expected: [Frame],
                              sourceLocation: SourceLocation = #_sourceLocation) {
        let reply = send(channel, payload)
        #expect(reply == expected, sourceLocation: sourceLocation)
    }
}

func hex(_ text: String) -> [UInt8] {
    let digits = Array(text.filter { !$0.isWhitespace })
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
}
