// Compiled by scripts/check-embedded.sh with Embedded Swift for a Cortex-M4: a static attribute
// source and one call into GATTServer, so every generic path of the server is specialized and
// checked against the Embedded subset (no existentials, no Foundation, typed throws). Not linked
// into anything; the firmware's own source (BandFirmware's BandAttributeSource) is the real user.
import BandATT
import BandGATTServer
import BandWire

/// Device Name in a GAP service, with a CCCD: values computed, no storage beyond a few bytes.
struct ProbeSource: GATTAttributeSource {
    var configuration: UInt16 = 0

    var attributeCount: Int { 4 }

    func attribute(at index: Int) -> GATTServerAttribute {
        switch index {
        case 0: GATTServerAttribute(handle: 1, type: BluetoothUUID(0x2800), serviceUUID: BluetoothUUID(0x1800), groupEnd: 4)
        case 1: GATTServerAttribute(handle: 2, type: BluetoothUUID(0x2803))
        case 2: GATTServerAttribute(handle: 3, type: BluetoothUUID(0x2A00))
        default: GATTServerAttribute(handle: 4, type: BluetoothUUID(0x2902))
        }
    }

    func firstIndex(atOrAfter handle: UInt16) -> Int { min(max(Int(handle), 1) - 1, attributeCount) }

    func withValue<R>(at index: Int, _ body: (UnsafeRawBufferPointer) -> R) throws(ATTErrorCode) -> R {
        var bytes: (UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0)
        return withUnsafeMutableBytes(of: &bytes) { raw in
            var writer = ByteWriter(raw)
            switch index {
            case 0: writer.writeUInt16LE(0x1800)
            case 1: writer.writeUInt8(0x02); writer.writeUInt16LE(3); writer.writeUInt16LE(0x2A00)
            case 2: writer.writeUInt8(0x42); writer.writeUInt8(0x4B)
            default: writer.writeUInt16LE(configuration)
            }
            return body(writer.written)
        }
    }

    mutating func write(_ value: UnsafeRawBufferPointer, at index: Int, withResponse: Bool) throws(ATTErrorCode) -> Bool {
        guard index == 3 else { throw .writeNotPermitted }
        guard value.count == 2 else { throw .invalidAttributeValueLength }
        configuration = UInt16(value[0]) | UInt16(value[1]) << 8
        return configuration & 1 != 0
    }
}

/// One request in, the response's length out (the firmware's receive/transmit buffers).
@_cdecl("gatt_probe_handle")
public func gattProbeHandle(_ request: UnsafeRawPointer, _ requestLength: Int, _ response: UnsafeMutableRawPointer, _ capacity: Int) -> Int {
    var server = GATTServer(serverMTU: 247, mtu: 23, answersReadMultiple: false)
    var source = ProbeSource()
    let result = server.handle(UnsafeRawBufferPointer(start: request, count: requestLength), source: &source,
                               into: UnsafeMutableRawBufferPointer(start: response, count: capacity))
    return result.responseLength
}
