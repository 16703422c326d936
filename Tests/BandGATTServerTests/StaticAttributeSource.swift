import BandATT
import BandGATTServer
import BandTestSupport
import BandWire

/// A small fixed attribute table for driving the server directly, with one attribute of
/// each permission the server must tell apart. Values are kept per attribute; writes store.
///
/// | handle | attribute | read | write |
/// |---|---|---|---|
/// | 0x0001 | primary service 0x1800 (end 0x0005) | 00 18 | |
/// | 0x0002 | characteristic declaration | 02 03 00 00 2a | |
/// | 0x0003 | Device Name 0x2A00 | "Band" | Write Not Permitted |
/// | 0x0004 | characteristic declaration | 02 05 00 29 2a | |
/// | 0x0005 | Manufacturer 0x2A29, 100 bytes 00…63 | whole | Write Not Permitted |
/// | 0x0006 | primary service 0x180F (end 0x0009) | 0f 18 | |
/// | 0x0007 | characteristic declaration | 12 08 00 19 2a | |
/// | 0x0008 | Battery Level 0x2A19 | Insufficient Authentication | Insufficient Authentication |
/// | 0x0009 | CCCD 0x2902 | 00 00 | 2 bytes stored, else Invalid Attribute Value Length |
/// | 0x000B | primary service (128-bit, end 0x000D) | 16 bytes | |
/// | 0x000C | characteristic declaration | 08 0d 00 + 128-bit UUID | |
/// | 0x000D | control point (128-bit) | Read Not Permitted | any value stored |
///
/// Handle 0x000A is a gap: tables need not be dense.
struct StaticAttributeSource: GATTAttributeSource {
    enum WriteEffect: Equatable {
        case stored(handle: UInt16, bytes: [UInt8])
    }

    struct Row {
        var attribute: GATTServerAttribute
        var value: [UInt8]
        var readError: ATTErrorCode?
        var writeError: ATTErrorCode?
        var valueLength: Int?
    }

    static let vendorService = BluetoothUUID(high: 0xb5c0_0000_0e8b_7a36, low: 0x9a6c_2d1f_4e2f_4b1a)
    static let vendorControlPoint = BluetoothUUID(high: 0xb5c0_0001_0e8b_7a36, low: 0x9a6c_2d1f_4e2f_4b1a)

    var rows: [Row]
    var authenticated = false

    init() {
        let uuidBytes = StaticAttributeSource.bytes(of:)
        let primary = BluetoothUUID(0x2800), declaration = BluetoothUUID(0x2803)
        rows = [
            Row(attribute: .init(handle: 1, type: primary, serviceUUID: BluetoothUUID(0x1800), groupEnd: 5), value: [0x00, 0x18]),
            Row(attribute: .init(handle: 2, type: declaration), value: [0x02, 0x03, 0x00, 0x00, 0x2a]),
            Row(attribute: .init(handle: 3, type: BluetoothUUID(0x2A00)), value: Array("Band".utf8), writeError: .writeNotPermitted),
            Row(attribute: .init(handle: 4, type: declaration), value: [0x02, 0x05, 0x00, 0x29, 0x2a]),
            Row(attribute: .init(handle: 5, type: BluetoothUUID(0x2A29)), value: (0..<100).map { UInt8($0) }, writeError: .writeNotPermitted),
            Row(attribute: .init(handle: 6, type: primary, serviceUUID: BluetoothUUID(0x180F), groupEnd: 9), value: [0x0f, 0x18]),
            Row(attribute: .init(handle: 7, type: declaration), value: [0x12, 0x08, 0x00, 0x19, 0x2a]),
            Row(attribute: .init(handle: 8, type: BluetoothUUID(0x2A19)), value: [0x64],
                readError: .insufficientAuthentication, writeError: .insufficientAuthentication),
            Row(attribute: .init(handle: 9, type: BluetoothUUID(0x2902)), value: [0x00, 0x00], valueLength: 2),
            Row(attribute: .init(handle: 0x0B, type: primary, serviceUUID: Self.vendorService, groupEnd: 0x0D), value: uuidBytes(Self.vendorService)),
            Row(attribute: .init(handle: 0x0C, type: declaration), value: [0x08, 0x0d, 0x00] + uuidBytes(Self.vendorControlPoint)),
            Row(attribute: .init(handle: 0x0D, type: Self.vendorControlPoint), value: [], readError: .readNotPermitted),
        ]
    }

    /// A UUID as it goes on the wire (2 or 16 bytes, little-endian).
    static func bytes(of uuid: BluetoothUUID) -> [UInt8] {
        var storage = [UInt8](repeating: 0, count: 16)
        let count = storage.withUnsafeMutableBytes { raw in
            var writer = ByteWriter(raw)
            uuid.encode(into: &writer)
            return writer.count
        }
        return Array(storage.prefix(count))
    }

    var attributeCount: Int { rows.count }
    func attribute(at index: Int) -> GATTServerAttribute { rows[index].attribute }

    func firstIndex(atOrAfter handle: UInt16) -> Int {
        rows.firstIndex { $0.attribute.handle >= handle } ?? rows.count
    }

    func withValue<R>(at index: Int, _ body: (UnsafeRawBufferPointer) -> R) throws(ATTErrorCode) -> R {
        let row = rows[index]
        if let error = row.readError, !(error == .insufficientAuthentication && authenticated) { throw error }
        return row.value.withUnsafeBytes(body)
    }

    mutating func write(_ value: UnsafeRawBufferPointer, at index: Int, withResponse: Bool) throws(ATTErrorCode) -> WriteEffect {
        let row = rows[index]
        if let error = row.writeError, !(error == .insufficientAuthentication && authenticated) { throw error }
        if row.attribute.type == BluetoothUUID(0x2800) || row.attribute.type == BluetoothUUID(0x2803) { throw .writeNotPermitted }
        if let length = row.valueLength, value.count != length { throw .invalidAttributeValueLength }
        rows[index].value = Array(value)
        return .stored(handle: row.attribute.handle, bytes: Array(value))
    }
}

/// One client's conversation with a ``GATTServer``: requests in hex, responses checked in hex.
final class ServerConversation<Source: GATTAttributeSource> {
    var server: GATTServer
    var source: Source
    private var output = [UInt8](repeating: 0, count: ATT.maximumMTU)

    init(_ source: Source, server: GATTServer = GATTServer()) {
        self.source = source
        self.server = server
    }

    /// Sends `request` (hex, spaces ignored); returns the response as hex ("" for none) and the event.
    func send(_ request: String) -> (response: String, event: GATTServerEvent<Source.WriteEffect>, error: ATTErrorCode?) {
        let pdu = bytes(request)
        let result = pdu.withUnsafeBytes { raw in
            output.withUnsafeMutableBytes { server.handle(raw, source: &source, into: $0) }
        }
        return (Hex.encode(output[0..<result.responseLength]), result.event, result.error)
    }

    /// The response to `request`, as compact hex.
    func ask(_ request: String) -> String { send(request).response }
}
