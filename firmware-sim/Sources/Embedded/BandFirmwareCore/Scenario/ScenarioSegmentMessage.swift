/// Link message 0x12 (host → firmware): one segment of the day plan the chip's band is to run, so
/// the chip runs the scenario file the Linux band would (the host parses the file with
/// ``ScenarioParser``; the chip never sees its text). Segments are sent in order, index 0 first,
/// before link 0x10 starts the band; without any the chip runs the built-in `day`.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | index (0…n−1) |
/// | 1 | 1 | segment count n (1…``maximumSegments``) |
/// | 2 | 2 | start, minutes after local midnight, uint16 LE (0…1439) |
/// | 4 | 1 | activity: 0 sleep, 1 desk, 2 walk, 3 run, 4 not-worn |
/// | 5 | 1 | flags: bit 0 cadence given, bit 1 stride given (the others 0) |
/// | 6 | 8 | cadence, steps per minute, IEEE 754 binary64 LE, 0–250 (0 and ignored when not given) |
/// | 14 | 8 | stride, metres, binary64 LE, (0, 2.5] (0 and ignored when not given) |
public enum ScenarioSegmentMessage {
    public static let byteCount = 22
    /// Segments the chip keeps (its scenario buffer; a bigger scenario is refused).
    public static let maximumSegments = 32

    static let kinds: [ActivityKind] = [.sleep, .desk, .walk, .run, .notWorn]

    /// The message body (without the 0x12 code).
    public static func encode(_ segment: ScenarioSegment, index: Int, count: Int) -> [UInt8] {
        var body = [UInt8](repeating: 0, count: byteCount)
        body[0] = UInt8(truncatingIfNeeded: index)
        body[1] = UInt8(truncatingIfNeeded: count)
        body[2] = UInt8(truncatingIfNeeded: segment.startMinute)
        body[3] = UInt8(truncatingIfNeeded: segment.startMinute >> 8)
        body[4] = UInt8(kinds.firstIndex(of: segment.kind) ?? 0)
        body[5] = (segment.cadence == nil ? 0 : 1) | (segment.strideMetres == nil ? 0 : 2)
        for byte in 0..<8 {
            body[6 + byte] = UInt8(truncatingIfNeeded: (segment.cadence ?? 0).bitPattern >> UInt64(8 * byte))
            body[14 + byte] = UInt8(truncatingIfNeeded: (segment.strideMetres ?? 0).bitPattern >> UInt64(8 * byte))
        }
        return body
    }

    /// What a body holds, nil when it is not a valid segment: wrong length, index not below the
    /// count, a count of 0 or over ``maximumSegments``, a start past 23:59, an unknown activity or
    /// flag, or a cadence outside 0–250 or a stride outside (0, 2.5] m (NaN included).
    public static func decode(_ body: UnsafeRawBufferPointer) -> (index: Int, count: Int, segment: ScenarioSegment)? {
        guard body.count == byteCount else { return nil }
        let index = Int(body[0]), count = Int(body[1])
        let start = Int(body[2]) | Int(body[3]) << 8
        guard count >= 1, count <= maximumSegments, index < count, start < 1_440,
              Int(body[4]) < kinds.count, body[5] & ~3 == 0 else { return nil }
        func double(_ offset: Int) -> Double {
            var bits: UInt64 = 0
            for byte in 0..<8 { bits |= UInt64(body[offset + byte]) << UInt64(8 * byte) }
            return Double(bitPattern: bits)
        }
        // The scenario parser's plausible ranges: cadence 0–250 steps/min, stride (0, 2.5] m.
        let cadence = double(6), stride = double(14)
        guard body[5] & 1 == 0 || (cadence >= 0 && cadence <= 250),
              body[5] & 2 == 0 || (stride > 0 && stride <= 2.5) else { return nil }
        let segment = ScenarioSegment(startMinute: start, kind: kinds[Int(body[4])],
                                      cadence: body[5] & 1 != 0 ? cadence : nil, strideMetres: body[5] & 2 != 0 ? stride : nil)
        return (index, count, segment)
    }
}
