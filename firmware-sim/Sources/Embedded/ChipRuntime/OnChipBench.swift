import BandATT
import BandGATTServer
import FirmwareCrypto
import UARTFraming

/// The firmware's hot operations timed on the chip itself (link message 0x07 → 0x85), each run
/// `iterations` times between two reads of the board's cycle counter: bench/firmware/mcu.sh turns
/// the cycles into instructions (QEMU `-icount`) and docs/performance.md records them.
///
/// | index | operation |
/// |---|---|
/// | 0 | an ATT Read Request answered by the GATT server (no UART) |
/// | 1 | a 10-byte UART frame decoded, byte by byte |
/// | 2 | a 10-byte UART frame encoded |
/// | 3 | HMAC-SHA256 of 48 bytes (one authentication proof) |
/// | 4 | 16 bytes from the HMAC_DRBG (one nonce) |
enum OnChipBench {
    static let operationCount = 5
    static let iterations: UInt64 = 64

    static func run<B: Board>(board: inout B) -> InlineArray<5, UInt32> {
        var results = InlineArray<5, UInt32>(repeating: 0)
        var sink: UInt32 = 0

        var server = GATTServer(serverMTU: 247, mtu: 247, answersReadMultiple: false)
        var source = BoardAttributeSource()
        var request: (UInt8, UInt8, UInt8) = (0x0a, 0x03, 0x00)
        var response = InlineArray<247, UInt8>(repeating: 0)
        var responseSpan = response.mutableSpan
        results[0] = time(&board) {
            withUnsafeBytes(of: &request) { pdu in
                responseSpan.withUnsafeMutableBytes { out in sink &+= UInt32(server.handle(pdu, source: &source, into: out).responseLength) }
            }
        }

        var frame = InlineArray<16, UInt8>(repeating: 0)
        var frameSpan = frame.mutableSpan
        var frameLength = 0
        frameSpan.withUnsafeMutableBytes { out in
            withUnsafeBytes(of: &request) { frameLength = UARTFrame.encode(channel: .att, payload: $0, into: out) ?? 0 }
        }
        results[1] = time(&board) {
            var decoder = UARTFrameDecoder()
            frameSpan.withUnsafeMutableBytes { raw in
                decoder.decode(UnsafeRawBufferPointer(rebasing: raw[0..<frameLength])) { _, payload in sink &+= UInt32(payload.count) }
            }
        }
        results[2] = time(&board) {
            frameSpan.withUnsafeMutableBytes { out in
                withUnsafeBytes(of: &request) { sink &+= UInt32(UARTFrame.encode(channel: .att, payload: $0, into: out) ?? 0) }
            }
        }

        var key = Digest256(), message = InlineArray<48, UInt8>(repeating: 0x5A)
        var messageSpan = message.mutableSpan
        results[3] = time(&board) {
            messageSpan.withUnsafeMutableBytes { m in
                key.withUnsafeBytes { k in sink &+= UInt32(HMAC.authenticationCode(for: UnsafeRawBufferPointer(m), key: k).bytes[0]) }
            }
        }

        var nonce = InlineArray<16, UInt8>(repeating: 0)
        var nonceSpan = nonce.mutableSpan
        let seeded: HMACDRBG? = key.withUnsafeBytes { k in try? HMACDRBG(entropy: k, nonce: k) }
        if var drbg = seeded {
            results[4] = time(&board) {
                nonceSpan.withUnsafeMutableBytes { out in
                    if (try? drbg.generate(into: out)) != nil { sink &+= UInt32(out[0]) }
                }
            }
        }
        key.bytes[0] = UInt8(truncatingIfNeeded: sink)   // keeps the work observable to the optimizer
        return results
    }

    /// Average cycles of `body` over ``iterations`` runs.
    private static func time<B: Board>(_ board: inout B, _ body: () -> Void) -> UInt32 {
        let start = board.cycleCount()
        for _ in 0..<iterations { body() }
        return UInt32(truncatingIfNeeded: (board.cycleCount() &- start) / iterations)
    }
}
