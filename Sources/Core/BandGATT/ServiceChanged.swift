import BandATT
import BandWire

/// Service Changed (0x2A05), indicated by the GATT service: handles in this range changed, so
/// a client must rediscover them.
///
/// Core 5.4 Vol 3 Part G §7.1.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 2 | start of affected attribute handle range |
/// | 2 | 2 | end of affected attribute handle range |
public struct ServiceChanged: WireCodable, Hashable, Sendable {
    public var affectedRange: ATTHandleRange

    public init(affectedRange: ATTHandleRange) { self.affectedRange = affectedRange }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        let start = try input.readUInt16LE("start of affected attribute handle range")
        let endField = input
        let end = try input.readUInt16LE("end of affected attribute handle range")
        guard start <= end else { throw endField.error(.invalidValue, "end of affected attribute handle range") }
        affectedRange = ATTHandleRange(start: start, end: end)
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt16LE(affectedRange.start)
        output.writeUInt16LE(affectedRange.end)
    }
}
