import BandATT
import BandLink
import BandProtocol
import BandWire

/// The band's ATT server: one request at a time, answered from the static attribute table.
/// Every malformed or unsupported request gets the Error Response Core 5.4 Vol 3 Part F §3.4
/// prescribes; nothing a client sends can crash the band.
extension SimulatedBand {
    /// The ATT_MTU the band offers: the largest worth negotiating.
    public static let serverMTU = ATT.maximumMTU

    /// Handles every PDU already waiting on the connection (never blocks), then sends the next
    /// burst of an ongoing history transfer.
    public func pump() {
        while let current = connection {
            let received: Int?
            do throws(LinkError) {
                received = try current.bearer.receive(into: receiveBuffer, timeout: .zero)
            } catch {
                if case .pduTooLarge(let size, _) = error {
                    log("connection \(current.number): ignored a \(size)-byte PDU larger than any ATT_MTU")
                    continue
                }
                disconnect(reason: error == .closed ? "reader hung up" : "\(error)")
                return
            }
            guard let length = received else { break }
            handlePDU(UnsafeRawBufferPointer(rebasing: receiveBuffer[0..<length]))
        }
        continueTransfer()
    }

    /// Handles one PDU from the client.
    func handlePDU(_ bytes: UnsafeRawBufferPointer) {
        guard connection != nil, let first = bytes.first else { return }
        let opcode = ATTOpcode(rawValue: first)
        let pdu: ATTPDU
        do throws(ParseError) {
            pdu = try ATTPDU(bytes: bytes)
        } catch {
            // Commands never get a response, not even an error (§3.4.9); a malformed request
            // gets Invalid PDU (§3.4.1.1).
            if opcode.isRequest { sendError(.invalidPDU, request: opcode, handle: 0) }
            return
        }
        switch pdu {
        case .exchangeMTURequest(let request): exchangeMTU(request)
        case .findInformationRequest(let request): findInformation(request)
        case .findByTypeValueRequest(let request): findByTypeValue(request)
        case .readByTypeRequest(let request): readByType(request)
        case .readByGroupTypeRequest(let request): readByGroupType(request)
        case .readRequest(let request): read(handle: request.handle, offset: nil, opcode: .readRequest)
        case .readBlobRequest(let request): read(handle: request.handle, offset: Int(request.valueOffset), opcode: .readBlobRequest)
        case .writeRequest(let request):
            request.value.withUnsafeBytes { write(handle: request.handle, value: $0, withResponse: true) }
        case .writeCommand(let command):
            command.value.withUnsafeBytes { write(handle: command.handle, value: $0, withResponse: false) }
        case .prepareWriteRequest(let request):
            // No characteristic is longer than one Write Request can carry; queued writes are
            // not offered (§3.4.6).
            sendError(.requestNotSupported, request: opcode, handle: request.handle)
        case .executeWriteRequest, .readMultipleRequest, .readMultipleVariableRequest:
            sendError(.requestNotSupported, request: opcode, handle: 0)
        case .signedWriteCommand:
            // Signed writes need a CSRK from SMP bonding, which the band does not do; a command
            // gets no answer (§3.4.5.4).
            break
        case .handleValueConfirmation:
            indicationConfirmed()
        case .unknown(let unknown, _):
            if unknown.isRequest || !(unknown.isCommand || unknown.isResponse || unknown == .handleValueNotification || unknown == .handleValueIndication) {
                sendError(.requestNotSupported, request: unknown, handle: 0)
            }
        case .errorResponse, .exchangeMTUResponse, .findInformationResponse, .findByTypeValueResponse,
             .readByTypeResponse, .readResponse, .readBlobResponse, .readMultipleResponse,
             .readByGroupTypeResponse, .writeResponse, .prepareWriteResponse, .executeWriteResponse,
             .handleValueNotification, .handleValueIndication, .readMultipleVariableResponse,
             .multipleHandleValueNotification:
            // The band is a server only; a client sending server PDUs is ignored.
            break
        }
    }

    // MARK: MTU

    private func exchangeMTU(_ request: ATTExchangeMTURequest) {
        guard let current = connection else { return }
        guard !current.mtuExchanged else {
            // "This request shall only be sent once during a connection" (§3.4.2.1).
            sendError(.requestNotSupported, request: .exchangeMTURequest, handle: 0)
            return
        }
        current.mtuExchanged = true
        sendPDU { ATTExchangeMTUResponse(serverRxMTU: UInt16(Self.serverMTU)).encode(into: &$0) }
        // Both sides use min(client Rx MTU, server Rx MTU), never below the LE default (§3.4.2.2).
        let agreed = max(ATT.defaultLEMTU, min(Int(request.clientRxMTU), Self.serverMTU))
        current.mtu = agreed
        current.bearer.mtu = agreed
    }

    // MARK: Discovery

    private func findInformation(_ request: ATTFindInformationRequest) {
        guard let current = connection else { return }
        guard request.range.isValid else {
            sendError(.invalidHandle, request: .findInformationRequest, handle: request.range.start); return
        }
        var response: ATTFindInformationResponse?
        for attribute in attributes(in: request.range) {
            if response == nil { response = ATTFindInformationResponse(format: .fitting(attribute.type)) }
            if !response!.append(handle: attribute.handle, type: attribute.type, mtu: current.mtu) { break }
        }
        guard let response else {
            sendError(.attributeNotFound, request: .findInformationRequest, handle: request.range.start); return
        }
        sendPDU { response.encode(into: &$0) }
    }

    private func findByTypeValue(_ request: ATTFindByTypeValueRequest) {
        guard let current = connection else { return }
        guard request.range.isValid else {
            sendError(.invalidHandle, request: .findByTypeValueRequest, handle: request.range.start); return
        }
        let type = BluetoothUUID(request.attributeType)
        var response = ATTFindByTypeValueResponse()
        for attribute in attributes(in: request.range) where attribute.type == type {
            // Only values readable without authentication can be matched: services and declarations.
            guard case .primaryService = attribute.role else { continue }
            let matches = request.value.withUnsafeBytes { wanted in
                withDiscoveryValue(of: attribute) { $0.elementsEqual(wanted) }
            }
            guard matches else { continue }
            if !response.append(.init(handle: attribute.handle, endGroupHandle: attribute.serviceEnd), mtu: current.mtu) { break }
        }
        guard !response.isEmpty else {
            sendError(.attributeNotFound, request: .findByTypeValueRequest, handle: request.range.start); return
        }
        sendPDU { response.encode(into: &$0) }
    }

    private func readByType(_ request: ATTReadByTypeRequest) {
        guard let current = connection else { return }
        guard request.range.isValid else {
            sendError(.invalidHandle, request: .readByTypeRequest, handle: request.range.start); return
        }
        var response = ATTReadByTypeResponse()
        for attribute in attributes(in: request.range) where attribute.type == request.attributeType {
            if let refusal = readRefusal(attribute) {
                // The first match decides the error; later ones end the list (§3.4.4.1).
                if response.isEmpty { sendError(refusal, request: .readByTypeRequest, handle: attribute.handle); return }
                break
            }
            var writer = ByteWriter(valueBuffer)
            writeValue(of: attribute, into: &writer)
            if !response.append(handle: attribute.handle, value: writer.written, mtu: current.mtu) { break }
        }
        guard !response.isEmpty else {
            sendError(.attributeNotFound, request: .readByTypeRequest, handle: request.range.start); return
        }
        sendPDU { response.encode(into: &$0) }
    }

    private func readByGroupType(_ request: ATTReadByGroupTypeRequest) {
        guard let current = connection else { return }
        guard request.range.isValid else {
            sendError(.invalidHandle, request: .readByGroupTypeRequest, handle: request.range.start); return
        }
        guard request.groupType == GATTDatabase.primaryServiceType || request.groupType == GATTDatabase.secondaryServiceType else {
            sendError(.unsupportedGroupType, request: .readByGroupTypeRequest, handle: request.range.start); return
        }
        var response = ATTReadByGroupTypeResponse()
        for attribute in attributes(in: request.range) where attribute.type == request.groupType {
            guard case .primaryService(let uuid) = attribute.role else { continue }
            if !response.append(.init(handle: attribute.handle, endGroupHandle: attribute.serviceEnd, uuid: uuid), mtu: current.mtu) { break }
        }
        guard !response.isEmpty else {
            sendError(.attributeNotFound, request: .readByGroupTypeRequest, handle: request.range.start); return
        }
        sendPDU { response.encode(into: &$0) }
    }

    // MARK: Reads

    private func read(handle: UInt16, offset: Int?, opcode: ATTOpcode) {
        guard let current = connection else { return }
        guard let attribute = GATTDatabase.attribute(handle) else {
            sendError(.invalidHandle, request: opcode, handle: handle); return
        }
        if let refusal = readRefusal(attribute) { sendError(refusal, request: opcode, handle: handle); return }
        var writer = ByteWriter(valueBuffer)
        writeValue(of: attribute, into: &writer)
        let value = writer.written
        let start = offset ?? 0
        guard start <= value.count else { sendError(.invalidOffset, request: opcode, handle: handle); return }
        let end = min(value.count, start + current.mtu - 1)
        sendPDU { out in
            out.writeUInt8(opcode == .readRequest ? ATTOpcode.readResponse.rawValue : ATTOpcode.readBlobResponse.rawValue)
            out.writeBytes(UnsafeRawBufferPointer(rebasing: value[start..<end]))
        }
    }

    /// Why `attribute` may not be read on this connection, or nil.
    func readRefusal(_ attribute: GATTDatabase.Attribute) -> ATTErrorCode? {
        switch attribute.role {
        case .primaryService, .declaration:
            return nil
        case .value(let characteristic):
            if characteristic.requiresAuthentication, connection?.authenticated != true { return Self.notAuthenticated }
            return characteristic.properties.contains(.read) ? nil : .readNotPermitted
        case .configuration(let characteristic):
            if characteristic.requiresAuthentication, connection?.authenticated != true { return Self.notAuthenticated }
            return nil
        }
    }

    static let notAuthenticated = ATTErrorCode(rawValue: BandActivityService.notAuthenticatedError)

    // MARK: Writes

    private func write(handle: UInt16, value: UnsafeRawBufferPointer, withResponse: Bool) {
        guard connection != nil else { return }
        let opcode: ATTOpcode = withResponse ? .writeRequest : .writeCommand
        guard let attribute = GATTDatabase.attribute(handle) else {
            if withResponse { sendError(.invalidHandle, request: opcode, handle: handle) }
            return
        }
        let outcome = writeValue(value, to: attribute, withResponse: withResponse)
        switch outcome {
        case .refused(let error):
            if withResponse { sendError(error, request: opcode, handle: handle) }
        case .accepted(let followUp):
            if withResponse, !sendPDU({ ATTWriteResponse().encode(into: &$0) }) { return }
            perform(followUp)
        }
    }

    // MARK: Helpers

    func attributes(in range: ATTHandleRange) -> ArraySlice<GATTDatabase.Attribute> {
        let all = GATTDatabase.attributes
        let lower = Int(range.start) - 1
        let upper = min(Int(range.end), all.count)
        guard lower < upper else { return all[0..<0] }
        return all[lower..<upper]
    }
}
