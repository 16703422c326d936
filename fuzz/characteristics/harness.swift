// libFuzzer harness for the characteristic and declaration decoders (BandGATT).
//
// The first byte picks what the rest is decoded as: one of the UUIDs that
// CharacteristicValue dispatches on (or one it does not know), or a characteristic,
// service or include declaration. Properties checked:
//  1. decoding never traps;
//  2. a decoded characteristic value re-encodes to exactly its input (the declarations may
//     shorten a 128-bit SIG UUID to 2 bytes, so for them only property 3 holds);
//  3. encode → decode → encode is stable.
import BandATT
import BandGATT
import BandWire

let uuids: [BluetoothUUID] = [
    GATTUUID.Characteristic.heartRateMeasurement, GATTUUID.Characteristic.bodySensorLocation,
    GATTUUID.Characteristic.heartRateControlPoint, GATTUUID.Characteristic.rscMeasurement,
    GATTUUID.Characteristic.rscFeature, GATTUUID.Characteristic.batteryLevel,
    GATTUUID.Characteristic.currentTime, GATTUUID.Characteristic.dateTime,
    GATTUUID.Characteristic.localTimeInformation, GATTUUID.Characteristic.deviceName,
    GATTUUID.Characteristic.appearance, GATTUUID.Characteristic.serviceChanged,
    GATTUUID.Characteristic.systemID, GATTUUID.Characteristic.manufacturerNameString,
    GATTUUID.Characteristic.modelNumberString, GATTUUID.Characteristic.serialNumberString,
    GATTUUID.Characteristic.hardwareRevisionString, GATTUUID.Characteristic.firmwareRevisionString,
    GATTUUID.Characteristic.softwareRevisionString, GATTUUID.Descriptor.clientCharacteristicConfiguration,
    BluetoothUUID(0xFFF1),
]

nonisolated(unsafe) let first = UnsafeMutableRawBufferPointer.allocate(byteCount: 2048, alignment: 8)
nonisolated(unsafe) let second = UnsafeMutableRawBufferPointer.allocate(byteCount: 2048, alignment: 8)

func encode(_ value: some WireEncodable, into buffer: UnsafeMutableRawBufferPointer) -> UnsafeRawBufferPointer {
    var writer = ByteWriter(buffer)
    value.encode(into: &writer)
    guard let count = try? writer.finish() else { fatalError("encoding a decoded value overflowed 2048 bytes") }
    return UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[0..<count])
}

/// Decodes `input` with `decode`; checks properties 2 (when `exact`) and 3.
func check<T: WireEncodable & Equatable>(
    _ input: UnsafeRawBufferPointer, exact: Bool, _ name: String,
    _ decode: (UnsafeRawBufferPointer) throws(ParseError) -> T
) {
    let value: T
    do {
        value = try decode(input)
    } catch {
        precondition(error.offset >= 0 && error.offset <= input.count, "\(name): error offset \(error.offset) outside \(input.count) bytes")
        return
    }
    let encoded = encode(value, into: first)
    if exact { precondition(encoded.elementsEqual(input), "\(name) does not re-encode to its input") }
    let again: T
    do {
        again = try decode(encoded)
    } catch {
        fatalError("\(name): re-encoding does not decode: \(error)")
    }
    precondition(again == value, "\(name) changed over encode → decode")
    precondition(encode(again, into: second).elementsEqual(encoded), "\(name) encodes differently the second time")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCharacteristics(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard size >= 1, let data else { return 0 }
    let selector = Int(data[0])
    let value = UnsafeRawBufferPointer(start: data + 1, count: size - 1)
    switch selector % (uuids.count + 3) {
    case let index where index < uuids.count:
        let uuid = uuids[index]
        check(value, exact: true, "\(uuid)") { (bytes) throws(ParseError) in try CharacteristicValue(uuid: uuid, bytes: bytes) }
    case uuids.count:
        check(value, exact: false, "characteristic declaration") { (bytes) throws(ParseError) in
            try CharacteristicDeclaration(parsingAll: bytes)
        }
    case uuids.count + 1:
        check(value, exact: false, "service declaration") { (bytes) throws(ParseError) in try ServiceDeclaration(parsingAll: bytes) }
    default:
        check(value, exact: true, "include declaration") { (bytes) throws(ParseError) in try IncludeDeclaration(parsingAll: bytes) }
    }
    return 0
}
