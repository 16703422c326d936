/// One line of text for the board's debug port, built on the stack without String (whose
/// formatting would cost the image kilobytes): fixed text, decimal and hexadecimal numbers.
/// Longer than ``capacity`` is cut.
public struct DebugLine {
    public static let capacity = 96
    private var bytes = InlineArray<96, UInt8>(repeating: 0)   // capacity
    private var count = 0

    public init(_ text: StaticString) { append(text) }

    public mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { for byte in $0 { put(byte) } }
    }

    public mutating func append(decimal value: UInt32) {
        var digits = InlineArray<10, UInt8>(repeating: 0)
        var rest = value
        var used = 0
        repeat {
            digits[used] = 0x30 + UInt8(rest % 10)
            rest /= 10
            used += 1
        } while rest > 0
        while used > 0 { used -= 1; put(digits[used]) }
    }

    /// `value` as `digits` hexadecimal digits, zero-padded.
    public mutating func append(hex value: UInt64, digits: Int) {
        for index in stride(from: digits - 1, through: 0, by: -1) {
            let nibble = UInt8(truncatingIfNeeded: value >> UInt64(4 * index)) & 0x0F
            put(nibble < 10 ? 0x30 + nibble : 0x57 + nibble)
        }
    }

    /// Writes the line and a newline to the board's debug port.
    public mutating func write<B: Board>(to board: inout B) {
        bytes[count] = 0x0A   // put keeps the last byte for it
        let used = count + 1
        var span = bytes.mutableSpan
        span.withUnsafeMutableBytes { board.debugWrite(UnsafeRawBufferPointer(rebasing: $0[0..<used])) }
    }

    /// The line's text so far, without the newline.
    public mutating func withBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        let used = count
        var span = bytes.mutableSpan
        return span.withUnsafeMutableBytes { body(UnsafeRawBufferPointer(rebasing: $0[0..<used])) }
    }

    private mutating func put(_ byte: UInt8) {
        guard count < Self.capacity - 1 else { return }
        bytes[count] = byte
        count += 1
    }
}
