import BandWire

/// Multiple Handle Value Notification (0x23): several notifications in one PDU.
///
/// Core 5.4 Vol 3 Part F §3.4.7.4. Every tuple is whole (a server never cuts one); the
/// GATT procedure sends two or more, but one decodes too.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | opcode 0x23 |
/// | 1 | 4 + n per tuple | {attribute handle u16 (non-zero), value length u16, value[length]} repeated, n ≥ 1 tuples |
public struct ATTMultipleHandleValueNotification: ATTPDUType {
    public static let opcode = ATTOpcode.multipleHandleValueNotification

    public private(set) var tupleBytes: ATTParameterBytes

    /// An empty notification to fill with ``append(handle:value:mtu:)``.
    public init() { tupleBytes = ATTParameterBytes() }

    public var isEmpty: Bool { tupleBytes.isEmpty }

    /// Calls `body` with each handle and a view of its value, valid only during the call.
    public func forEachValue<E: Error>(_ body: (UInt16, UnsafeRawBufferPointer) throws(E) -> Void) throws(E) {
        try tupleBytes.withUnsafeBytes { (raw) throws(E) in
            var index = 0
            while index + 4 <= raw.count {
                let handle = UInt16(raw[index]) | UInt16(raw[index + 1]) << 8
                let length = Int(raw[index + 2]) | Int(raw[index + 3]) << 8
                try body(handle, UnsafeRawBufferPointer(rebasing: raw[index + 4..<index + 4 + length]))
                index += 4 + length
            }
        }
    }

    /// Appends a whole tuple if it fits in `mtu`; false (nothing appended) otherwise.
    public mutating func append(handle: UInt16, value: UnsafeRawBufferPointer, mtu: Int) -> Bool {
        let size = 4 + value.count
        guard 1 + tupleBytes.count + size <= mtu, size <= tupleBytes.freeCapacity else { return false }
        _ = tupleBytes.appendUInt16LE(handle)
        _ = tupleBytes.appendUInt16LE(UInt16(value.count))
        _ = tupleBytes.append(contentsOf: value)
        return true
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        try input.readOpcode(Self.opcode)
        let start = input.offset
        let all = input.readRemaining()
        guard all.count <= ATT.maximumParameterLength else {
            throw ParseError(.invalidValue, at: start + ATT.maximumParameterLength, field: "handle length value tuple list")
        }
        var tuples = ByteCursor(all, baseOffset: start)
        repeat {
            _ = try tuples.readNonZeroHandle("attribute handle")
            let length = try tuples.readUInt16LE("value length")
            try tuples.skip(Int(length), "attribute value")
        } while !tuples.isAtEnd
        tupleBytes = try ATTParameterBytes(copying: all, offset: start)
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(Self.opcode.rawValue)
        tupleBytes.write(to: &output)
    }
}
