import BandWire

/// Number Of Completed Packets: the parameters of HCI event 0x13 (Core 5.4 Vol 4 Part E
/// §7.7.19), the controller returning ACL buffers to the host.
///
/// | bytes | field |
/// |---|---|
/// | u8 | number of handles *n* |
/// | *n* × u16 LE | connection handles |
/// | *n* × u16 LE | completed packets per handle |
///
/// Held inline for up to ``capacity`` handles (no allocation); more is refused as unsupported,
/// since a peripheral has far fewer links.
public struct NumberOfCompletedPackets: WireCodable, Equatable, Sendable {
    public static let capacity = 8

    @usableFromInline var handles: InlineArray<8, UInt16>
    @usableFromInline var counts: InlineArray<8, UInt16>
    public private(set) var count: Int

    public init() {
        handles = InlineArray(repeating: 0)
        counts = InlineArray(repeating: 0)
        count = 0
    }

    /// Adds one handle's count; false when ``capacity`` are already held.
    public mutating func append(handle: UInt16, completed: UInt16) -> Bool {
        guard count < Self.capacity else { return false }
        handles[count] = handle & 0x0FFF
        counts[count] = completed
        count += 1
        return true
    }

    /// The `index`-th (handle, completed packets) pair.
    public subscript(index: Int) -> (handle: UInt16, completed: UInt16) {
        precondition(index >= 0 && index < count, "NumberOfCompletedPackets index out of range")
        return (handles[index], counts[index])
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        self.init()
        let countOffset = input.offset
        let n = Int(try input.readUInt8("number of handles"))
        guard n <= Self.capacity else { throw ParseError(.unsupported, at: countOffset, field: "number of handles") }
        var handleCursor = try input.readCursor(2 * n, "connection handles")
        var countCursor = try input.readCursor(2 * n, "completed packets")
        for _ in 0..<n {
            _ = append(handle: try handleCursor.readUInt16LE("connection handle"), completed: try countCursor.readUInt16LE("completed packets"))
        }
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(UInt8(count))
        for i in 0..<count { output.writeUInt16LE(handles[i]) }
        for i in 0..<count { output.writeUInt16LE(counts[i]) }
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for i in 0..<lhs.count where lhs[i] != rhs[i] { return false }
        return true
    }
}
