/// The frame that carries ATT PDUs and the firmware's debug channel over the UART between the band's
/// firmware (Cortex-M4, `firmware/`) and the host bridge (`bandsim serve --firmware`). One codec,
/// compiled into both: this module is Embedded-Swift-clean (`scripts/check-embedded.sh`).
/// docs/protocol.md, "UART framing", is the specification.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | sync, 0xA5 |
/// | 1 | 1 | channel (``UARTChannel``) |
/// | 2 | 2 | payload length n, little-endian, 0…``maximumPayload`` |
/// | 4 | 1 | header check: CRC-8 (poly 0x07, init 0x00) of bytes 1–3 |
/// | 5 | n | payload |
/// | 5+n | 2 | CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF) of bytes 1…4+n, little-endian |
///
/// The header check lets a receiver reject a false sync byte in garbage after five bytes instead of
/// waiting for a bogus length's worth of payload; the trailing CRC covers everything but the sync.
public enum UARTFrame {
    public static let sync: UInt8 = 0xA5
    public static let headerByteCount = 5
    public static let trailerByteCount = 2
    /// The largest payload: one ATT PDU at the largest ATT_MTU (517, Core 5.4 Vol 3 Part F §3.2.9).
    public static let maximumPayload = 517
    public static let maximumFrameByteCount = headerByteCount + maximumPayload + trailerByteCount

    /// Writes the frame for `payload` on `channel` into `output`; returns the bytes written, or nil
    /// when the payload is longer than ``maximumPayload`` or `output` is too small.
    public static func encode(
        channel: UARTChannel, payload: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer
    ) -> Int? {
        let total = headerByteCount + payload.count + trailerByteCount
        guard payload.count <= maximumPayload, output.count >= total else { return nil }
        output[0] = sync
        output[1] = channel.rawValue
        output[2] = UInt8(truncatingIfNeeded: payload.count)
        output[3] = UInt8(truncatingIfNeeded: payload.count >> 8)
        output[4] = CRC8.checksum(output[1], output[2], output[3])
        for index in 0..<payload.count { output[headerByteCount + index] = payload[index] }
        var crc = CRC16()
        for index in 1..<(headerByteCount + payload.count) { crc.update(output[index]) }
        output[total - 2] = UInt8(truncatingIfNeeded: crc.value)
        output[total - 1] = UInt8(truncatingIfNeeded: crc.value >> 8)
        return total
    }
}

/// What a frame carries. Open: an unknown channel is delivered to the caller, which counts and ignores it.
public struct UARTChannel: RawRepresentable, Equatable, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// One ATT PDU, either direction.
    public static let att = UARTChannel(rawValue: 0x01)
    /// Link events: host → firmware connect/disconnect, firmware → host ready (docs/protocol.md).
    public static let link = UARTChannel(rawValue: 0x02)
    /// The firmware's own truth and counters, firmware → host (docs/protocol.md).
    public static let debug = UARTChannel(rawValue: 0x03)
}
