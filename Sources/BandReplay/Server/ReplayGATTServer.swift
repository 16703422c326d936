import BandATT
import BandGATT
import BandWire

/// The ATT server side of a replay: answers a live client's requests from a recorded
/// database (Core 5.4 Vol 3 Part F §3.4), and keeps what that client configured.
///
/// No I/O: ``handle(_:into:)`` turns one request PDU into at most one response PDU in a
/// caller-owned buffer and says what the client did. Where the trace is silent the answers
/// are the ones a real server gives for something it does not have:
///
/// | request | when | answer |
/// |---|---|---|
/// | any discovery | range invalid (start 0 or start > end) | Invalid Handle (start) |
/// | any discovery | nothing recorded in the range | Attribute Not Found (start): ends the client's loop |
/// | Read By Group Type | type other than 0x2800/0x2801 | Unsupported Group Type |
/// | Read, Read Blob | handle 0 or not in the database | Invalid Handle |
/// | Read, Read Blob | the recorded server refused it | the recorded error |
/// | Read, Read Blob | value never read in the trace, or not readable | Read Not Permitted |
/// | Read Blob | offset past the value | Invalid Offset |
/// | Write | CCCD, 2 bytes | stored per live client; Write Response |
/// | Write | CCCD, other length | Invalid Attribute Value Length |
/// | Write | characteristic with Write property | Write Response (the value is not stored) |
/// | Write | anything else | Write Not Permitted |
/// | Prepare/Execute Write, unknown requests | | Request Not Supported |
/// | malformed request | | Invalid PDU (other malformed PDUs are dropped) |
///
/// Commands (Write Command, Signed Write, unknown opcodes with bit 6 set) never get a
/// response, not even an error (§3.4.9).
public final class ReplayGATTServer {
    /// What one client PDU amounted to, for the session that schedules notifications.
    public enum ClientAction: Hashable, Sendable {
        case none
        case exchangedMTU(Int)
        /// The client wrote (request or command) `handle`; `accepted` false if it was refused.
        case wrote(handle: UInt16, accepted: Bool)
        /// The client set the CCCD of the characteristic at `valueHandle` (nil if unknown).
        case configured(cccd: UInt16, valueHandle: UInt16?, configuration: ClientCharacteristicConfiguration)
        case confirmedIndication
        /// A PDU a client must not send (a response, a notification): ignored.
        case unexpected(ATTOpcode)
    }

    /// The outcome of reading one attribute.
    public enum AttributeRead: Hashable, Sendable {
        case value([UInt8])
        case refused(ATTErrorCode)
    }

    public let table: ReplayAttributeTable
    /// Receive MTU offered in Exchange MTU Response.
    public let serverMTU: Int
    /// ATT_MTU in force with the live client.
    public private(set) var mtu: Int = ATT.defaultLEMTU
    /// The live client's CCCD values, by descriptor handle.
    public private(set) var configurations: [UInt16: ClientCharacteristicConfiguration] = [:]
    /// Value handle → its CCCD handle, from the database.
    private let cccdByValueHandle: [UInt16: UInt16]
    /// Requests answered with an error, by error code (for the summary).
    public private(set) var errorsSent: [ATTErrorCode: Int] = [:]

    public init(database: RecordedGATTDatabase, serverMTU: Int) {
        table = ReplayAttributeTable(database)
        self.serverMTU = max(ATT.defaultLEMTU, min(serverMTU, ATT.maximumMTU))
        var map: [UInt16: UInt16] = [:]
        for attribute in table.attributes {
            if case .descriptor(let descriptor, let valueHandle?) = attribute.role, descriptor.isClientCharacteristicConfiguration {
                map[valueHandle] = descriptor.handle
            }
        }
        cccdByValueHandle = map
    }

    /// The CCCD handle of the characteristic at `valueHandle`, if the database has one.
    public func clientConfigurationHandle(forValueHandle valueHandle: UInt16) -> UInt16? { cccdByValueHandle[valueHandle] }

    /// What the live client enabled for the characteristic at `valueHandle`.
    public func configuration(forValueHandle valueHandle: UInt16) -> ClientCharacteristicConfiguration? {
        cccdByValueHandle[valueHandle].map { configurations[$0] ?? [] }
    }

    /// Answers `pdu`, writing the response (if any) into `output`; returns its length (0 for
    /// none) and what the client did.
    public func handle(_ pdu: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> (responseLength: Int, action: ClientAction) {
        var writer = ByteWriter(output)
        let action = respond(to: pdu, writer: &writer)
        precondition(!writer.overflowed, "response buffer smaller than ATT_MTU")
        return (writer.count, action)
    }

    private func respond(to pdu: UnsafeRawBufferPointer, writer: inout ByteWriter) -> ClientAction {
        guard let first = pdu.first else { return .none }
        let opcode = ATTOpcode(rawValue: first)
        let request: ATTPDU
        do throws(ParseError) {
            request = try ATTPDU(bytes: pdu)
        } catch {
            // Only a request is owed an answer; a broken command, response or confirmation is dropped.
            if opcode.isRequest { fail(opcode, handle: 0, .invalidPDU, &writer) }
            return .none
        }
        switch request {
        case .exchangeMTURequest(let request):
            mtu = max(ATT.defaultLEMTU, min(Int(request.clientRxMTU), serverMTU))
            ATTExchangeMTUResponse(serverRxMTU: UInt16(serverMTU)).encode(into: &writer)
            return .exchangedMTU(mtu)
        case .findInformationRequest(let request):
            findInformation(request.range, &writer)
        case .findByTypeValueRequest(let request):
            findByTypeValue(request, &writer)
        case .readByTypeRequest(let request):
            readByType(request.range, request.attributeType, &writer)
        case .readByGroupTypeRequest(let request):
            readByGroupType(request.range, request.groupType, &writer)
        case .readRequest(let request):
            read(opcode, request.handle, offset: 0, &writer)
        case .readBlobRequest(let request):
            read(opcode, request.handle, offset: Int(request.valueOffset), &writer)
        case .readMultipleRequest(let request):
            readMultiple(request, &writer)
        case .writeRequest(let request):
            return request.value.withUnsafeBytes { write(request.handle, $0, respondWith: opcode, &writer) }
        case .writeCommand(let command):
            var discard = ByteWriter(UnsafeMutableRawBufferPointer(start: nil, count: 0))
            return command.value.withUnsafeBytes { write(command.handle, $0, respondWith: nil, &discard) }
        case .handleValueConfirmation:
            return .confirmedIndication
        case .prepareWriteRequest, .executeWriteRequest:
            fail(opcode, handle: 0, .requestNotSupported, &writer)
        case .unknown(let unknown, _):
            if !unknown.isCommand { fail(unknown, handle: 0, .requestNotSupported, &writer) }
        default:
            if opcode.isRequest { fail(opcode, handle: 0, .requestNotSupported, &writer) } else { return .unexpected(opcode) }
        }
        return .none
    }

    // MARK: Discovery

    private func findInformation(_ range: ATTHandleRange, _ writer: inout ByteWriter) {
        guard range.isValid else { return fail(.findInformationRequest, handle: range.start, .invalidHandle, &writer) }
        let found = table.attributes(in: range)
        guard let first = found.first else { return fail(.findInformationRequest, handle: range.start, .attributeNotFound, &writer) }
        var response = ATTFindInformationResponse(format: .fitting(first.type))
        for attribute in found where !response.append(handle: attribute.handle, type: attribute.type, mtu: mtu) { break }
        response.encode(into: &writer)
    }

    private func findByTypeValue(_ request: ATTFindByTypeValueRequest, _ writer: inout ByteWriter) {
        let range = request.range
        guard range.isValid else { return fail(.findByTypeValueRequest, handle: range.start, .invalidHandle, &writer) }
        let type = BluetoothUUID(request.attributeType)
        let wanted = request.value.array
        var response = ATTFindByTypeValueResponse()
        for attribute in table.attributes(in: range) where attribute.type == type {
            guard case .value(let value) = readValue(attribute), Self.sameValue(value, wanted, type: type) else { continue }
            if !response.append(.init(handle: attribute.handle, endGroupHandle: attribute.groupEnd), mtu: mtu) { break }
        }
        guard !response.isEmpty else { return fail(.findByTypeValueRequest, handle: range.start, .attributeNotFound, &writer) }
        response.encode(into: &writer)
    }

    /// Service UUIDs compare as UUIDs (a 16-bit one may be asked for in its 128-bit form).
    private static func sameValue(_ value: [UInt8], _ wanted: [UInt8], type: BluetoothUUID) -> Bool {
        if value == wanted { return true }
        guard type == GATTUUID.Declaration.primaryService || type == GATTUUID.Declaration.secondaryService,
              let a = uuid(value), let b = uuid(wanted) else { return false }
        return a == b
    }

    private static func uuid(_ bytes: [UInt8]) -> BluetoothUUID? {
        guard bytes.count == 2 || bytes.count == 16 else { return nil }
        return bytes.withUnsafeBytes { raw in
            var cursor = ByteCursor(raw)
            return try? BluetoothUUID(parsing: &cursor, width: raw.count)
        }
    }

    private func readByType(_ range: ATTHandleRange, _ type: BluetoothUUID, _ writer: inout ByteWriter) {
        guard range.isValid else { return fail(.readByTypeRequest, handle: range.start, .invalidHandle, &writer) }
        var response = ATTReadByTypeResponse()
        for attribute in table.attributes(in: range) where attribute.type == type {
            switch readValue(attribute) {
            case .refused(let error):
                // §3.4.4.1: an error on the first match is reported; later ones end the list.
                if response.isEmpty { return fail(.readByTypeRequest, handle: attribute.handle, error, &writer) }
            case .value(let value):
                let appended = value.withUnsafeBytes { response.append(handle: attribute.handle, value: $0, mtu: mtu) }
                if appended { continue }
            }
            break
        }
        guard !response.isEmpty else { return fail(.readByTypeRequest, handle: range.start, .attributeNotFound, &writer) }
        response.encode(into: &writer)
    }

    private func readByGroupType(_ range: ATTHandleRange, _ type: BluetoothUUID, _ writer: inout ByteWriter) {
        guard range.isValid else { return fail(.readByGroupTypeRequest, handle: range.start, .invalidHandle, &writer) }
        guard type == GATTUUID.Declaration.primaryService || type == GATTUUID.Declaration.secondaryService else {
            return fail(.readByGroupTypeRequest, handle: range.start, .unsupportedGroupType, &writer)
        }
        var response = ATTReadByGroupTypeResponse()
        for attribute in table.attributes(in: range) where attribute.type == type {
            guard case .service(let service) = attribute.role else { continue }
            if !response.append(.init(handle: service.handle, endGroupHandle: service.endGroupHandle, uuid: service.uuid), mtu: mtu) { break }
        }
        guard !response.isEmpty else { return fail(.readByGroupTypeRequest, handle: range.start, .attributeNotFound, &writer) }
        response.encode(into: &writer)
    }

    // MARK: Reads

    private func read(_ opcode: ATTOpcode, _ handle: UInt16, offset: Int, _ writer: inout ByteWriter) {
        guard let attribute = table.attribute(at: handle) else { return fail(opcode, handle: handle, .invalidHandle, &writer) }
        switch readValue(attribute) {
        case .refused(let error):
            fail(opcode, handle: handle, error, &writer)
        case .value(let value):
            guard offset <= value.count else { return fail(opcode, handle: handle, .invalidOffset, &writer) }
            writer.writeUInt8(opcode == .readRequest ? ATTOpcode.readResponse.rawValue : ATTOpcode.readBlobResponse.rawValue)
            writer.writeBytes(value[offset..<min(value.count, offset + mtu - 1)])
        }
    }

    private func readMultiple(_ request: ATTReadMultipleRequest, _ writer: inout ByteWriter) {
        var values: [UInt8] = []
        for index in 0..<request.handleCount {
            let handle = request.handle(at: index)
            guard let attribute = table.attribute(at: handle) else {
                return fail(.readMultipleRequest, handle: handle, .invalidHandle, &writer)
            }
            switch readValue(attribute) {
            case .refused(let error): return fail(.readMultipleRequest, handle: handle, error, &writer)
            case .value(let value): values += value
            }
        }
        writer.writeUInt8(ATTOpcode.readMultipleResponse.rawValue)
        writer.writeBytes(values.prefix(mtu - 1))
    }

    /// The bytes a read of `attribute` returns now, or the error it gets.
    public func readValue(_ attribute: ReplayAttributeTable.Attribute) -> AttributeRead {
        let database = table.database
        switch attribute.role {
        case .service(let service):
            return .value(ServiceDeclaration(uuid: service.uuid).encodedBytes(capacity: 16))
        case .include(let include):
            let uuid = include.uuid?.shortValue == nil ? nil : include.uuid
            return .value(IncludeDeclaration(includedServiceHandle: include.includedServiceHandle,
                                               endGroupHandle: include.endGroupHandle, uuid: uuid).encodedBytes(capacity: 6))
        case .characteristicDeclaration(let characteristic):
            return .value(characteristic.declaration.encodedBytes(capacity: 19))
        case .characteristicValue, .descriptor:
            if case .descriptor(let descriptor, _) = attribute.role, descriptor.isClientCharacteristicConfiguration {
                return .value((configurations[descriptor.handle] ?? []).encodedBytes(capacity: 2))
            }
            if let error = database.readErrors[attribute.handle] { return .refused(error) }
            if let value = database.values[attribute.handle] { return .value(value.bytes) }
            return .refused(.readNotPermitted)
        }
    }

    // MARK: Writes

    private func write(_ handle: UInt16, _ value: UnsafeRawBufferPointer, respondWith opcode: ATTOpcode?,
                       _ writer: inout ByteWriter) -> ClientAction {
        func refuse(_ error: ATTErrorCode) -> ClientAction {
            if let opcode { fail(opcode, handle: handle, error, &writer) }
            return .wrote(handle: handle, accepted: false)
        }
        guard let attribute = table.attribute(at: handle) else { return refuse(.invalidHandle) }
        switch attribute.role {
        case .descriptor(let descriptor, let valueHandle) where descriptor.isClientCharacteristicConfiguration:
            guard value.count == 2 else { return refuse(.invalidAttributeValueLength) }
            let configuration = ClientCharacteristicConfiguration(rawValue: UInt16(value[0]) | UInt16(value[1]) << 8)
            configurations[handle] = configuration
            if opcode != nil { writer.writeUInt8(ATTOpcode.writeResponse.rawValue) }
            return .configured(cccd: handle, valueHandle: valueHandle, configuration: configuration)
        case .characteristicValue(let characteristic):
            let allowed: CharacteristicProperties = opcode == nil ? .writeWithoutResponse : .write
            // Devices commonly accept either kind of write on a writable value; so do we.
            guard characteristic.properties.contains(allowed) || !characteristic.properties.isDisjoint(with: [.write, .writeWithoutResponse]) else {
                return refuse(.writeNotPermitted)
            }
            if opcode != nil { writer.writeUInt8(ATTOpcode.writeResponse.rawValue) }
            return .wrote(handle: handle, accepted: true)
        default:
            return refuse(.writeNotPermitted)
        }
    }

    private func fail(_ opcode: ATTOpcode, handle: UInt16, _ error: ATTErrorCode, _ writer: inout ByteWriter) {
        errorsSent[error, default: 0] += 1
        ATTErrorResponse(requestOpcode: opcode, handle: handle, error: error).encode(into: &writer)
    }
}
