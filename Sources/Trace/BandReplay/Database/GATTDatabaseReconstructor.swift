import BandATT
import BandGATT
import BandWire

/// Rebuilds the GATT databases a trace reveals, from its ATT PDUs alone: no I/O, no clock.
///
/// ATT is strictly sequential per direction (Core 5.4 Vol 3 Part F §3.3.2: a client has at
/// most one request outstanding), so each response or Error Response is paired with the
/// last request the other end sent on the same connection, and read against it:
///
/// | request → response | learned |
/// |---|---|
/// | Read By Group Type 0x2800/0x2801 → 0x11 | services (handle, end group handle, UUID) |
/// | Find By Type Value 0x2800 → 0x07 | services with the asked-for UUID |
/// | Read By Type 0x2803 → 0x09 | characteristics (properties, value handle, UUID) |
/// | Read By Type 0x2802 → 0x09 | includes |
/// | Read By Type other → 0x09 | values of those attributes, and their type |
/// | Find Information → 0x05 | attribute types, hence descriptors |
/// | Read → 0x0B, Read Blob → 0x0D | values; long ones reassembled by offset |
/// | Read → Error Response | the error a replay must give back (e.g. Insufficient Authentication) |
/// | Exchange MTU → 0x03 | the server's Receive MTU; the ATT_MTU that says whether a value was cut |
///
/// Both ends of a connection may be servers (a phone serves Current Time to a band), so
/// databases are kept per ``ATTServerSide``. Notifications are counted per side, which is
/// how ``preferredSide`` picks "the peripheral".
public struct GATTDatabaseReconstructor: Sendable {
    private struct ClientKey: Hashable {
        var connection: TraceConnection
        var client: ATTSender
    }

    private enum PendingRequest: Sendable {
        case exchangeMTU(clientMTU: Int)
        case findInformation(ATTHandleRange)
        /// Primary service discovery by UUID: the asked-for UUID, since the response repeats none.
        case findServiceByUUID(BluetoothUUID, isPrimary: Bool)
        case readByType(ATTHandleRange, type: BluetoothUUID)
        case readByGroupType(ATTHandleRange, type: BluetoothUUID)
        case read(handle: UInt16)
        case readBlob(handle: UInt16, offset: Int)
        case other(ATTOpcode)

        var opcode: ATTOpcode {
            switch self {
            case .exchangeMTU: .exchangeMTURequest
            case .findInformation: .findInformationRequest
            case .findServiceByUUID: .findByTypeValueRequest
            case .readByType: .readByTypeRequest
            case .readByGroupType: .readByGroupTypeRequest
            case .read: .readRequest
            case .readBlob: .readBlobRequest
            case .other(let opcode): opcode
            }
        }
    }

    /// What one server end revealed so far.
    private struct ServerState: Sendable {
        var services: [UInt16: RecordedService] = [:]
        var includes: [UInt16: RecordedInclude] = [:]
        var characteristics: [UInt16: RecordedCharacteristic] = [:]
        /// Types named by Find Information (and Read By Type), declarations included.
        var attributeTypes: [UInt16: BluetoothUUID] = [:]
        var values: [UInt16: RecordedValue] = [:]
        var readErrors: [UInt16: ATTErrorCode] = [:]
        var serverMTU: Int?
        var clientMTU: Int?
        var notifications = 0

        /// ATT_MTU in force: both MTUs once exchanged (§3.4.2.2), the LE default before.
        var mtu: Int {
            guard let serverMTU, let clientMTU else { return ATT.defaultLEMTU }
            return max(ATT.defaultLEMTU, min(serverMTU, clientMTU))
        }
    }

    private var pending: [ClientKey: PendingRequest] = [:]
    private var servers: [ATTServerSide: ServerState] = [:]
    /// Responses that answered no request the trace showed (capture started mid-exchange,
    /// or a dropped record); they teach nothing and are counted here.
    public private(set) var unmatchedResponses = 0

    public init() {}

    /// Every server end seen answering requests or sending notifications.
    public var sides: [ATTServerSide] {
        servers.keys.sorted { ($0.connection, $0.server == .remoteDevice ? 0 : 1) < ($1.connection, $1.server == .remoteDevice ? 0 : 1) }
    }

    /// Notifications and indications `side` sent.
    public func notificationCount(_ side: ATTServerSide) -> Int { servers[side]?.notifications ?? 0 }

    /// The side a replay should impersonate: the one that sent the most notifications, then
    /// the one whose database is largest; nil when the trace shows no server at all.
    public var preferredSide: ATTServerSide? {
        sides.max { a, b in
            let left = (notificationCount(a), database(a).attributeCount)
            let right = (notificationCount(b), database(b).attributeCount)
            return left < right
        }
    }

    /// Feeds one ATT PDU (opcode first) sent by `sender` on `connection`.
    /// Throws when a PDU the reconstruction reads does not parse; the PDU is then ignored
    /// (and any request it answered stays unanswered).
    public mutating func observe(_ pdu: UnsafeRawBufferPointer, from sender: ATTSender, on connection: TraceConnection) throws(ParseError) {
        guard let first = pdu.first else { return }
        let opcode = ATTOpcode(rawValue: first)
        // Notifications dominate long traces and teach the database nothing: count and leave.
        if opcode == .handleValueNotification || opcode == .handleValueIndication {
            servers[ATTServerSide(connection: connection, server: sender), default: ServerState()].notifications += 1
            return
        }
        if opcode.isRequest {
            pending[ClientKey(connection: connection, client: sender)] = try Self.pendingRequest(pdu)
            return
        }
        guard opcode.isResponse else { return }
        let key = ClientKey(connection: connection, client: sender.other)
        guard let request = pending.removeValue(forKey: key) else {
            unmatchedResponses += 1
            return
        }
        let side = ATTServerSide(connection: connection, server: sender)
        let response = try ATTPDU(bytes: pdu)
        var state = servers[side] ?? ServerState()
        if !Self.apply(response, to: request, state: &state) { unmatchedResponses += 1 }
        servers[side] = state
    }

    /// Forgets requests left open when a connection ends (a new one may reuse its handle).
    public mutating func connectionEnded(_ connection: TraceConnection) {
        pending[ClientKey(connection: connection, client: .recordingHost)] = nil
        pending[ClientKey(connection: connection, client: .remoteDevice)] = nil
    }

    /// The database `side` revealed so far (empty if it revealed nothing).
    ///
    /// What no server can hold is left out, so a replay never serves it: anything at handle
    /// 0x0000, which is reserved (Core 5.4 Vol 3 Part F §3.2.2), and value bytes past the
    /// 512 an attribute may have (§3.2.9) — a damaged or misbehaving trace shows both.
    public func database(_ side: ATTServerSide) -> RecordedGATTDatabase {
        guard let state = servers[side] else { return RecordedGATTDatabase() }
        let characteristics = state.characteristics.values.filter { $0.handle != 0 && $0.valueHandle != 0 }
        let structural = Set(state.services.keys).union(state.includes.keys).union(state.characteristics.keys)
            .union(characteristics.map(\.valueHandle))
        var descriptors: [RecordedDescriptor] = []
        for (handle, type) in state.attributeTypes where handle != 0 && !structural.contains(handle) && !Self.isDeclaration(type) {
            descriptors.append(RecordedDescriptor(handle: handle, uuid: type))
        }
        var values = state.values
        values[0] = nil
        for (handle, value) in values where value.bytes.count > ATT.maximumAttributeValueLength {
            values[handle] = RecordedValue(bytes: Array(value.bytes.prefix(ATT.maximumAttributeValueLength)), isComplete: value.isComplete)
        }
        var readErrors = state.readErrors
        readErrors[0] = nil
        return RecordedGATTDatabase(services: state.services.values.filter { $0.handle != 0 },
                                    includes: state.includes.values.filter { $0.handle != 0 },
                                    characteristics: characteristics, descriptors: descriptors,
                                    values: values, readErrors: readErrors, serverMTU: state.serverMTU)
    }

    // MARK: Requests

    private static func pendingRequest(_ pdu: UnsafeRawBufferPointer) throws(ParseError) -> PendingRequest {
        switch try ATTPDU(bytes: pdu) {
        case .exchangeMTURequest(let request): return .exchangeMTU(clientMTU: Int(request.clientRxMTU))
        case .findInformationRequest(let request): return .findInformation(request.range)
        case .findByTypeValueRequest(let request):
            let type = BluetoothUUID(request.attributeType)
            let isService = type == GATTUUID.Declaration.primaryService || type == GATTUUID.Declaration.secondaryService
            let uuid: BluetoothUUID? = request.value.withUnsafeBytes { raw in
                guard raw.count == 2 || raw.count == 16 else { return nil }
                var cursor = ByteCursor(raw)
                return try? BluetoothUUID(parsing: &cursor, width: raw.count)
            }
            guard isService, let uuid else { return .other(.findByTypeValueRequest) }
            return .findServiceByUUID(uuid, isPrimary: type == GATTUUID.Declaration.primaryService)
        case .readByTypeRequest(let request): return .readByType(request.range, type: request.attributeType)
        case .readByGroupTypeRequest(let request): return .readByGroupType(request.range, type: request.groupType)
        case .readRequest(let request): return .read(handle: request.handle)
        case .readBlobRequest(let request): return .readBlob(handle: request.handle, offset: Int(request.valueOffset))
        case let other: return .other(other.opcode)
        }
    }

    // MARK: Responses

    /// Applies `response` to what `request` asked; false when it does not answer it.
    private static func apply(_ response: ATTPDU, to request: PendingRequest, state: inout ServerState) -> Bool {
        switch (request, response) {
        case (_, .errorResponse(let error)):
            guard error.requestOpcode == request.opcode else { return false }
            applyError(error, to: request, state: &state)

        case (.exchangeMTU(let clientMTU), .exchangeMTUResponse(let response)):
            state.clientMTU = clientMTU
            state.serverMTU = Int(response.serverRxMTU)

        case (.readByGroupType(_, let type), .readByGroupTypeResponse(let response)):
            guard type == GATTUUID.Declaration.primaryService || type == GATTUUID.Declaration.secondaryService else {
                return true  // a custom grouping type: nothing GATT defines
            }
            for entry in response.entries {
                state.services[entry.handle] = RecordedService(handle: entry.handle, endGroupHandle: entry.endGroupHandle,
                                                               uuid: entry.uuid, isPrimary: type == GATTUUID.Declaration.primaryService)
                state.attributeTypes[entry.handle] = type
            }

        case (.findServiceByUUID(let uuid, let isPrimary), .findByTypeValueResponse(let response)):
            let type = isPrimary ? GATTUUID.Declaration.primaryService : GATTUUID.Declaration.secondaryService
            for entry in response.entries {
                state.services[entry.handle] = RecordedService(handle: entry.handle, endGroupHandle: entry.endGroupHandle,
                                                               uuid: uuid, isPrimary: isPrimary)
                state.attributeTypes[entry.handle] = type
            }

        case (.other(.findByTypeValueRequest), .findByTypeValueResponse):
            break  // some other type searched by value: handles without meaning

        case (.readByType(_, let type), .readByTypeResponse(let response)):
            applyReadByType(response, type: type, state: &state)

        case (.findInformation, .findInformationResponse(let response)):
            for entry in response.entries { state.attributeTypes[entry.handle] = entry.type }

        case (.read(let handle), .readResponse(let response)):
            state.values[handle] = RecordedValue(bytes: response.value.array, isComplete: response.value.count < state.mtu - 1)
            state.readErrors[handle] = nil

        case (.readBlob(let handle, let offset), .readBlobResponse(let response)):
            var value = state.values[handle] ?? RecordedValue(bytes: [], isComplete: false)
            guard offset <= value.bytes.count else { return true }  // a gap: the piece cannot be placed
            value.bytes.replaceSubrange(offset..., with: response.partValue.array)
            value.isComplete = response.partValue.count < state.mtu - 1
            state.values[handle] = value

        case (.other(let opcode), let response):
            // Writes and the like: answered, but nothing for the database.
            return response.opcode.requestOpcode == opcode
        default:
            return false
        }
        return true
    }

    private static func applyError(_ error: ATTErrorResponse, to request: PendingRequest, state: inout ServerState) {
        switch request {
        case .read(let handle):
            // Invalid Handle says nothing about an attribute; any other refusal is replayed.
            if error.error != .invalidHandle { state.readErrors[handle] = error.error }
        case .readBlob(let handle, let offset):
            // Attribute Not Long / Invalid Offset at the end of what was read: the value is whole.
            if error.error == .attributeNotLong || error.error == .invalidOffset,
               var value = state.values[handle], offset >= value.bytes.count {
                value.isComplete = true
                state.values[handle] = value
            }
        default:
            break  // Attribute Not Found ends a discovery loop; the database already holds what was found.
        }
    }

    private static func applyReadByType(_ response: ATTReadByTypeResponse, type: BluetoothUUID, state: inout ServerState) {
        let mtu = state.mtu
        response.forEachEntry { handle, value in
            state.attributeTypes[handle] = type
            if type == GATTUUID.Declaration.characteristic {
                guard let declaration = try? CharacteristicDeclaration(parsingAll: value) else { return }
                state.characteristics[handle] = RecordedCharacteristic(handle: handle, properties: declaration.properties,
                                                                       valueHandle: declaration.valueHandle, uuid: declaration.uuid)
                state.attributeTypes[declaration.valueHandle] = declaration.uuid
            } else if type == GATTUUID.Declaration.include {
                guard let include = try? IncludeDeclaration(parsingAll: value) else { return }
                state.includes[handle] = RecordedInclude(handle: handle, includedServiceHandle: include.includedServiceHandle,
                                                         endGroupHandle: include.endGroupHandle, uuid: include.uuid)
            } else {
                // "Read Using Characteristic UUID" (§4.8.2): values cut at min(ATT_MTU − 4, 253).
                let cut = min(mtu - 4, ATTReadByTypeResponse.maximumValueLength)
                state.values[handle] = RecordedValue(bytes: Array(value), isComplete: value.count < cut)
            }
        }
    }

    private static func isDeclaration(_ type: BluetoothUUID) -> Bool {
        type == GATTUUID.Declaration.primaryService || type == GATTUUID.Declaration.secondaryService
            || type == GATTUUID.Declaration.include || type == GATTUUID.Declaration.characteristic
    }
}
