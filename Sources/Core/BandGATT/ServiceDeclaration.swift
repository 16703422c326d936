import BandATT
import BandWire

/// The value of a primary (0x2800) or secondary (0x2801) service declaration: the service UUID.
///
/// Core 5.4 Vol 3 Part G §3.1 (Table 3.1).
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 2 or 16 | service UUID |
public struct ServiceDeclaration: WireCodable, Hashable, Sendable {
    public var uuid: BluetoothUUID

    public init(uuid: BluetoothUUID) { self.uuid = uuid }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        uuid = try input.readUUIDFillingRest("service UUID")
    }

    public func encode(into output: inout ByteWriter) {
        uuid.encode(into: &output)
    }
}

/// The value of an include declaration (0x2802).
///
/// Core 5.4 Vol 3 Part G §3.2 (Table 3.2): the UUID is present only when it is a 16-bit one.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 2 | included service attribute handle (non-zero) |
/// | 2 | 2 | end group handle |
/// | 4 | 0 or 2 | service UUID (16-bit only) |
public struct IncludeDeclaration: WireCodable, Hashable, Sendable {
    public var includedServiceHandle: UInt16
    public var endGroupHandle: UInt16
    /// Nil for a 128-bit service, which the client must read from the included declaration itself.
    public var uuid: BluetoothUUID?

    public init(includedServiceHandle: UInt16, endGroupHandle: UInt16, uuid: BluetoothUUID?) {
        precondition(uuid == nil || uuid?.shortValue != nil, "an include declaration carries 16-bit UUIDs only")
        self.includedServiceHandle = includedServiceHandle
        self.endGroupHandle = endGroupHandle
        self.uuid = uuid
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        let handleField = input
        includedServiceHandle = try input.readUInt16LE("included service attribute handle")
        guard includedServiceHandle != 0 else { throw handleField.error(.invalidValue, "included service attribute handle") }
        endGroupHandle = try input.readUInt16LE("end group handle")
        switch input.remaining {
        case 0: uuid = nil
        case 1: throw input.error(.truncated, "service UUID")
        default: uuid = BluetoothUUID(try input.readUInt16LE("service UUID"))
        }
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt16LE(includedServiceHandle)
        output.writeUInt16LE(endGroupHandle)
        if let short = uuid?.shortValue { output.writeUInt16LE(short) }
    }
}
