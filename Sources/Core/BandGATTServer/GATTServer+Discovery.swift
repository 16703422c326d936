import BandATT
import BandWire

/// Find Information, Find By Type Value, Read By Type and Read By Group Type (Core 5.4 Vol 3
/// Part F §3.4.3–§3.4.4): walk the source's attributes in the requested range, fill one
/// response up to ATT_MTU.
extension GATTServer {
    @usableFromInline static let primaryServiceType = BluetoothUUID(0x2800)
    @usableFromInline static let secondaryServiceType = BluetoothUUID(0x2801)

    @inlinable
    func findInformation<Source: GATTAttributeSource>(_ range: ATTHandleRange, source: Source, writer: inout ByteWriter) -> Answer {
        guard range.isValid else { return .failed(.invalidHandle, handle: range.start) }
        var response: ATTFindInformationResponse?
        var index = source.firstIndex(atOrAfter: range.start)
        while index < source.attributeCount {
            let attribute = source.attribute(at: index)
            guard attribute.handle <= range.end else { break }
            if response == nil { response = ATTFindInformationResponse(format: .fitting(attribute.type)) }
            // One UUID width per response; a full response or a different width ends it.
            guard response!.append(handle: attribute.handle, type: attribute.type, mtu: mtu) else { break }
            index += 1
        }
        guard let response else { return .failed(.attributeNotFound, handle: range.start) }
        response.encode(into: &writer)
        return .written
    }

    @inlinable
    func findByTypeValue<Source: GATTAttributeSource>(_ request: ATTFindByTypeValueRequest, source: Source, writer: inout ByteWriter) -> Answer {
        let range = request.range
        guard range.isValid else { return .failed(.invalidHandle, handle: range.start) }
        let type = BluetoothUUID(request.attributeType)
        var response = ATTFindByTypeValueResponse()
        for (index, attribute) in source.attributes(ofType: type, in: range) {
            // Only values this connection may read are compared; a refused one never matches.
            let matches = (try? source.withValue(at: index) { value in
                request.value.withUnsafeBytes { wanted in Self.sameValue(value, wanted, type: type) }
            }) ?? false
            guard matches else { continue }
            guard response.append(.init(handle: attribute.handle, endGroupHandle: attribute.groupEnd), mtu: mtu) else { break }
        }
        guard !response.isEmpty else { return .failed(.attributeNotFound, handle: range.start) }
        response.encode(into: &writer)
        return .written
    }

    /// Byte-equal values match; service UUIDs also match across widths (a 16-bit service may
    /// be asked for in its 128-bit form).
    @inlinable
    static func sameValue(_ value: UnsafeRawBufferPointer, _ wanted: UnsafeRawBufferPointer, type: BluetoothUUID) -> Bool {
        if value.elementsEqual(wanted) { return true }
        guard type == primaryServiceType || type == secondaryServiceType,
              let a = uuid(value), let b = uuid(wanted) else { return false }
        return a == b
    }

    @inlinable
    static func uuid(_ bytes: UnsafeRawBufferPointer) -> BluetoothUUID? {
        guard bytes.count == 2 || bytes.count == 16 else { return nil }
        var cursor = ByteCursor(bytes)
        return try? BluetoothUUID(parsing: &cursor, width: bytes.count)
    }

    @inlinable
    func readByType<Source: GATTAttributeSource>(_ range: ATTHandleRange, type: BluetoothUUID, source: Source, writer: inout ByteWriter) -> Answer {
        guard range.isValid else { return .failed(.invalidHandle, handle: range.start) }
        var response = ATTReadByTypeResponse()
        for (index, attribute) in source.attributes(ofType: type, in: range) {
            let appended: Bool
            do throws(ATTErrorCode) {
                appended = try source.withValue(at: index) { value in
                    response.append(handle: attribute.handle, value: value, mtu: mtu)
                }
            } catch {
                // §3.4.4.1: an error on the first match is reported; later ones end the list.
                if response.isEmpty { return .failed(error, handle: attribute.handle) }
                break
            }
            // A full response, or a value of another length, ends the list.
            guard appended else { break }
        }
        guard !response.isEmpty else { return .failed(.attributeNotFound, handle: range.start) }
        response.encode(into: &writer)
        return .written
    }

    @inlinable
    func readByGroupType<Source: GATTAttributeSource>(_ range: ATTHandleRange, type: BluetoothUUID, source: Source, writer: inout ByteWriter) -> Answer {
        guard range.isValid else { return .failed(.invalidHandle, handle: range.start) }
        guard type == Self.primaryServiceType || type == Self.secondaryServiceType else {
            return .failed(.unsupportedGroupType, handle: range.start)
        }
        var response = ATTReadByGroupTypeResponse()
        for (_, attribute) in source.attributes(ofType: type, in: range) {
            guard let uuid = attribute.serviceUUID else { continue }
            guard response.append(.init(handle: attribute.handle, endGroupHandle: attribute.groupEnd, uuid: uuid), mtu: mtu) else { break }
        }
        guard !response.isEmpty else { return .failed(.attributeNotFound, handle: range.start) }
        response.encode(into: &writer)
        return .written
    }
}
