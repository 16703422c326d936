import BandATT
import BandWire

/// Where an ATT PDU keeps its handle and its attribute value, found by reading at most three
/// bytes: the hot path never copies a PDU or builds a `BandATT/ATTPDU`.
///
/// Which handle a PDU "is about" follows Wireshark's `btatt.handle` (ble-formats.md §5), so
/// `bandsim decode --json` and `tshark -e btatt.handle` agree PDU for PDU:
///
/// | opcodes | handle | value |
/// |---|---|---|
/// | 0x0A 0x0C 0x16 0x17 0x0E 0x20 0x23 | bytes 1–2 | — |
/// | 0x12 Write Req, 0x52 Write Cmd, 0x1B Notification, 0x1D Indication | bytes 1–2 | bytes 3… |
/// | 0xD2 Signed Write Cmd | bytes 1–2 | bytes 3…(n−12) |
/// | 0x01 Error Rsp | bytes 2–3 (handle in error) | — |
/// | 0x05 0x09 0x11 list responses | bytes 2–3 (first entry) | — |
/// | 0x07 Find By Type Value Rsp | bytes 1–2 (first found handle) | — |
/// | 0x0B Read Rsp | the request's (from the transaction) | bytes 1… |
/// | 0x0D Read Blob Rsp, 0x13 Write Rsp | the request's | — |
/// | 0x1E Confirmation | the indication's | — |
/// | others | none | — |
///
/// Opcodes outside the hot set are also checked against their full layout by BandATT's
/// decoders (cold: they occur a few hundred times per connection), so a malformed discovery
/// response is reported, not half-learned.
public struct ATTPDULayout: Hashable, Sendable {
    public var opcode: ATTOpcode
    /// The handle carried in the PDU itself (responses learn theirs from the request).
    public var handle: UInt16?
    /// Byte range of the attribute value inside the PDU.
    public var value: Range<Int>?

    public init(opcode: ATTOpcode, handle: UInt16?, value: Range<Int>?) {
        self.opcode = opcode
        self.handle = handle
        self.value = value
    }

    /// Locates the handle and value of `pdu`; throws with PDU-relative offsets when the PDU is
    /// shorter than its opcode requires or breaks its layout.
    public init(of pdu: UnsafeRawBufferPointer) throws(ParseError) {
        guard let first = pdu.first else { throw ParseError(.truncated, at: 0, field: "opcode") }
        opcode = ATTOpcode(rawValue: first)
        handle = nil
        value = nil
        switch first {
        case 0x1B, 0x1D, 0x52, 0x12:
            handle = try Self.handle(pdu, at: 1)
            guard pdu.count - 3 <= ATT.maximumAttributeValueLength else {
                throw ParseError(.invalidValue, at: 3 + ATT.maximumAttributeValueLength, field: "attribute value")
            }
            value = 3..<pdu.count
        case 0xD2:
            handle = try Self.handle(pdu, at: 1)
            guard pdu.count >= 15 else { throw ParseError(.truncated, at: pdu.count, field: "authentication signature") }
            value = 3..<(pdu.count - 12)
        default:
            try Self.validate(pdu)
            switch first {
            case 0x0A, 0x0C, 0x16, 0x17, 0x0E, 0x20, 0x23, 0x07:
                handle = try Self.handle(pdu, at: 1)
            case 0x01, 0x05, 0x09, 0x11:
                handle = try Self.handle(pdu, at: 2)
            case 0x0B:
                value = 1..<pdu.count
            default:
                break
            }
        }
    }

    @inline(__always)
    static func handle(_ pdu: UnsafeRawBufferPointer, at offset: Int) throws(ParseError) -> UInt16 {
        guard pdu.count >= offset + 2 else { throw ParseError(.truncated, at: min(pdu.count, offset), field: "attribute handle") }
        return UInt16(pdu[offset]) | UInt16(pdu[offset + 1]) << 8
    }

    /// Full layout check with BandATT for the PDUs it models; unknown opcodes pass as they are.
    static func validate(_ pdu: UnsafeRawBufferPointer) throws(ParseError) {
        _ = try ATTPDU(bytes: pdu)
    }
}
