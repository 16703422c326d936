/// The messages on the UART's link and debug channels (docs/protocol.md, "UART framing"): the
/// first payload byte says which, the rest is its body. Host → firmware on the link channel;
/// firmware → host on both.
///
/// | code | channel | direction | body |
/// |---|---|---|---|
/// | 0x01 seed | link | host → fw | 32 bytes entropy ‖ 16 bytes nonce: (re)instantiates the DRBG |
/// | 0x02 connect | link | host → fw | — : a reader connected; ATT state starts fresh (MTU 23) |
/// | 0x03 disconnect | link | host → fw | — |
/// | 0x04 status? | link | host → fw | — : answered by a 0x81 status debug frame |
/// | 0x05 random? | link | host → fw | 1 byte n (1…64): answered by 0x82 with n DRBG bytes |
/// | 0x06 self-test? | link | host → fw | — : answered by 0x83 |
/// | 0x07 bench? | link | host → fw | — : answered by 0x85 |
/// | 0x08 flash report? | link | host → fw | — : answered by 0x86 |
/// | 0x09 speed | link | host → fw | 2 bytes LE: band seconds per real second, 1…3600; other values logged and ignored |
/// | 0x0A reset | link | host → fw | — : resets the chip (SYSRESETREQ), as a watchdog would; the firmware boots again from flash and announces itself (0x80) |
/// | 0x10 band configure | link | host → fw | start (8, Int64 LE, Unix seconds) ‖ seed (8, UInt64 LE) ‖ time zone (1, Int8, quarter hours): the band's logic starts at that time (once per boot; ends start-up) |
/// | 0x7F fault | link | host → fw | — : provokes a hard fault (the handler's test) |
/// | 0x80 booted | link | fw → host | — : sent once after start-up |
/// | 0x89 link dropped | link | fw → host | link (4, UInt32 LE: the count of 0x02 since boot, the connection it ends) ‖ reason (1: 1 indication overflow, 2 no entropy, 3 send failed, 4 fault injection, 5 the band rebooted, 0 other): the band dropped the reader's connection itself; the host closes the reader's link |
/// | 0x81 status | debug | fw → host | ``FirmwareStatus`` (40 bytes, little-endian) |
/// | 0x82 random | debug | fw → host | the bytes; or 1 byte 0xFF when unseeded / refused |
/// | 0x83 self-test | debug | fw → host | 1 byte: bit 0 SHA-256, bit 1 HMAC, bit 2 DRBG passed |
/// | 0x84 log | debug | fw → host | the text of a `StaticString` log line |
/// | 0x86 flash report | debug | fw → host | boot count (4 LE), damaged boot-record pages found at boot (4 LE), minute records recovered from flash (4 LE), damaged ring/state slots skipped (4 LE), the next minute's sequence number (4 LE), the newest record's minute start (4 LE, Unix s; 0: none); also sent after 0x80 |
/// | 0x85 bench | debug | fw → host | ``OnChipBench`` results: 5 × UInt32 LE, CPU cycles per operation |
/// | 0x87 minute recorded | debug | fw → host | sequence (4, UInt32 LE) ‖ the 16-byte minute record (docs/protocol.md): the firmware's truth |
/// | 0x88 band status | debug | fw → host | ticks (8, UInt64 LE) ‖ CPU cycles in ticks (8) ‖ records (4) ‖ CPU cycles in the record ticks (8) ‖ CPU cycles writing the records to flash (8); answers 0x11 |
/// | 0x11 band status? | link | host → fw | — : answered by 0x88 |
/// | 0x13 band faults | link | host → fw | 33 bytes, BandFirmwareCore's `BandFaultMessage`: drop, corrupt and disconnect-random probabilities, clock drift in ppm (binary64 LE each), battery at boot (1 byte, percent; 0xFF: the flash's level), before 0x10 |
/// | 0x12 scenario segment | link | host → fw | 22 bytes, BandFirmwareCore's `ScenarioSegmentMessage`: one segment of the day plan, in order, before 0x10 (at most 32) |
public enum LinkMessage {
    public static let seed: UInt8 = 0x01
    public static let connect: UInt8 = 0x02
    public static let disconnect: UInt8 = 0x03
    public static let statusRequest: UInt8 = 0x04
    public static let randomRequest: UInt8 = 0x05
    public static let selfTestRequest: UInt8 = 0x06
    public static let benchRequest: UInt8 = 0x07
    public static let flashReportRequest: UInt8 = 0x08
    public static let speed: UInt8 = 0x09
    public static let reset: UInt8 = 0x0A
    public static let bandConfigure: UInt8 = 0x10
    public static let bandStatusRequest: UInt8 = 0x11
    public static let scenarioSegment: UInt8 = 0x12
    public static let bandFaults: UInt8 = 0x13
    public static let fault: UInt8 = 0x7F
    public static let booted: UInt8 = 0x80
    public static let status: UInt8 = 0x81
    public static let random: UInt8 = 0x82
    public static let selfTest: UInt8 = 0x83
    public static let log: UInt8 = 0x84
    public static let bench: UInt8 = 0x85
    public static let flashReport: UInt8 = 0x86
    public static let minuteRecorded: UInt8 = 0x87
    public static let bandStatus: UInt8 = 0x88
    public static let linkDropped: UInt8 = 0x89
    public static let linkDroppedByteCount = 5
    public static let bandConfigureByteCount = 17

    public static let seedByteCount = 48
    public static let maximumRandomRequest = 64
    /// The fastest band clock a host may ask for: an hour per second.
    public static let maximumSpeed: UInt32 = 3600
}

/// The firmware's counters as the 0x81 status message carries them (all little-endian).
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 8 | uptime, ms |
/// | 8 | 4 | frames decoded |
/// | 12 | 4 | bytes discarded while resynchronising |
/// | 16 | 4 | header check failures |
/// | 20 | 4 | CRC failures (oversize lengths included) |
/// | 24 | 4 | ATT PDUs answered |
/// | 28 | 4 | heap allocations since reset |
/// | 32 | 4 | heap allocations after start-up (must stay 0) |
/// | 36 | 4 | stack high-water mark, bytes |
public struct FirmwareStatus: Equatable {
    public static let byteCount = 40
    public var uptimeMilliseconds: UInt64 = 0
    public var frames: UInt32 = 0
    public var discardedBytes: UInt32 = 0
    public var headerCheckFailures: UInt32 = 0
    public var crcFailures: UInt32 = 0
    public var attPDUs: UInt32 = 0
    public var heapAllocations: UInt32 = 0
    public var heapAllocationsAfterStartUp: UInt32 = 0
    public var stackHighWaterBytes: UInt32 = 0

    public init() {}

    /// Writes the 40 bytes into `output` (at least ``byteCount`` long).
    public func encode(into output: UnsafeMutableRawBufferPointer) {
        var offset = 0
        func put(_ value: UInt64, _ size: Int) {
            for byte in 0..<size { output[offset + byte] = UInt8(truncatingIfNeeded: value >> UInt64(8 * byte)) }
            offset += size
        }
        put(uptimeMilliseconds, 8)
        let fields: InlineArray<8, UInt32> = [frames, discardedBytes, headerCheckFailures, crcFailures, attPDUs,
                                              heapAllocations, heapAllocationsAfterStartUp, stackHighWaterBytes]
        for index in fields.indices { put(UInt64(fields[index]), 4) }
    }

    /// Reads the 40 bytes of a status message body; nil when it is not 40 bytes long.
    public init?(parsing body: UnsafeRawBufferPointer) {
        guard body.count == Self.byteCount else { return nil }
        func get(_ offset: Int, _ size: Int) -> UInt64 {
            var value: UInt64 = 0
            for byte in 0..<size { value |= UInt64(body[offset + byte]) << UInt64(8 * byte) }
            return value
        }
        uptimeMilliseconds = get(0, 8)
        frames = UInt32(get(8, 4)); discardedBytes = UInt32(get(12, 4)); headerCheckFailures = UInt32(get(16, 4))
        crcFailures = UInt32(get(20, 4)); attPDUs = UInt32(get(24, 4)); heapAllocations = UInt32(get(28, 4))
        heapAllocationsAfterStartUp = UInt32(get(32, 4)); stackHighWaterBytes = UInt32(get(36, 4))
    }
}
