import BandWire

/// Read Multiple Variable Response (0x21): each requested value with its length.
///
/// Core 5.4 Vol 3 Part F §3.4.4.12. The list is cut at ATT_MTU − 1 bytes, so the last tuple
/// may hold fewer value bytes than its length says (the client reads the rest with Read
/// Blob), and a single trailing byte is the first half of a cut length field.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | opcode 0x21 |
/// | 1 | 2 + n per tuple | {value length u16, value[length]} repeated, the last possibly cut |
public struct ATTReadMultipleVariableResponse: ATTPDUType {
    public static let opcode = ATTOpcode.readMultipleVariableResponse

    /// The tuples as sent.
    public private(set) var tupleBytes: ATTParameterBytes

    /// An empty response to fill with ``append(_:mtu:)``.
    public init() { tupleBytes = ATTParameterBytes() }

    /// Calls `body` with each value's declared length and the bytes present (fewer than the
    /// length only for a cut last tuple); the view is valid only during the call.
    public func forEachValue<E: Error>(_ body: (Int, UnsafeRawBufferPointer) throws(E) -> Void) throws(E) {
        try tupleBytes.withUnsafeBytes { (raw) throws(E) in
            var index = 0
            while index + 2 <= raw.count {
                let length = Int(raw[index]) | Int(raw[index + 1]) << 8
                let end = min(raw.count, index + 2 + length)
                try body(length, UnsafeRawBufferPointer(rebasing: raw[index + 2..<end]))
                index = end
            }
        }
    }

    /// Appends a tuple, cutting its value to fit in `mtu` as §3.4.4.12 allows; false (nothing
    /// appended) once not even the length field fits.
    public mutating func append(_ value: UnsafeRawBufferPointer, mtu: Int) -> Bool {
        let room = min(mtu - 1, ATT.maximumParameterLength) - tupleBytes.count
        guard room >= 2, value.count <= Int(UInt16.max) else { return false }
        _ = tupleBytes.appendUInt16LE(UInt16(value.count))
        _ = tupleBytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: value[0..<min(value.count, room - 2)]))
        return true
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        try input.readOpcode(Self.opcode)
        tupleBytes = try input.readParameters("length value tuple list")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(Self.opcode.rawValue)
        tupleBytes.write(to: &output)
    }
}
