import BandATT
import BandGATT
import BandWire

extension GATTClient {
    /// Exchange MTU (Core 5.4 Vol 3 Part G §4.3.1): offers `clientReceiveMTU` and sets the bearer's
    /// MTU to the smaller of both sides' values. A server that does not support the exchange
    /// keeps the default 23. Returns the MTU in force.
    @discardableResult
    public func exchangeMTU(clientReceiveMTU: UInt16 = UInt16(ATT.maximumMTU)) throws(GATTError) -> Int {
        do throws(GATTError) {
            let response = try transact(ATTExchangeMTURequest(clientRxMTU: clientReceiveMTU))
            guard case .exchangeMTUResponse(let exchange) = response else { throw unexpected(response) }
            bearer.mtu = min(ATT.maximumMTU, negotiatedATTMTU(client: clientReceiveMTU, server: exchange.serverRxMTU))
        } catch {
            guard case .attError(_, _, .requestNotSupported) = error else { throw error }
        }
        return bearer.mtu
    }

    /// Discover All Primary Services (§4.4.1): Read By Group Type for «Primary Service» over the
    /// whole handle range until "Attribute Not Found" or the group ending at 0xFFFF.
    public func discoverPrimaryServices() throws(GATTError) -> [GATTService] {
        var services: [GATTService] = []
        var start: UInt16 = 0x0001
        while true {
            let response: ATTReadByGroupTypeResponse
            do throws(GATTError) {
                let pdu = try transact(ATTReadByGroupTypeRequest(range: ATTHandleRange(start: start, end: 0xFFFF),
                                                                 groupType: GATTUUID.Declaration.primaryService))
                guard case .readByGroupTypeResponse(let list) = pdu else { throw unexpected(pdu) }
                response = list
            } catch {
                if case .attError(_, _, .attributeNotFound) = error { break }
                throw error
            }
            for entry in response.entries {
                guard entry.handle >= start else {
                    throw protocolError("service at handle \(entry.handle) below the requested start \(start)")
                }
                services.append(GATTService(uuid: entry.uuid, handle: entry.handle, endHandle: entry.endGroupHandle))
            }
            let last = response.entry(at: response.count - 1).endGroupHandle
            if last == 0xFFFF { break }
            start = last + 1
        }
        return services
    }

    /// Discover All Characteristics of a Service (§4.6.1): Read By Type for «Characteristic»
    /// within the service's range. Each characteristic ends where the next declaration starts.
    public func discoverCharacteristics(of service: GATTService) throws(GATTError) -> [GATTCharacteristic] {
        var found: [GATTCharacteristic] = []
        var start = service.handle
        while start <= service.endHandle {
            let response: ATTReadByTypeResponse
            do throws(GATTError) {
                let pdu = try transact(ATTReadByTypeRequest(range: ATTHandleRange(start: start, end: service.endHandle),
                                                            attributeType: GATTUUID.Declaration.characteristic))
                guard case .readByTypeResponse(let list) = pdu else { throw unexpected(pdu) }
                response = list
            } catch {
                if case .attError(_, _, .attributeNotFound) = error { break }
                throw error
            }
            var lastHandle = start
            for index in 0..<response.count {
                let entry = response.entry(at: index)
                guard entry.handle >= start, entry.handle <= service.endHandle else {
                    throw protocolError("characteristic declaration at handle \(entry.handle) outside \(start)…\(service.endHandle)")
                }
                let declaration: CharacteristicDeclaration
                do {
                    declaration = try entry.value.withUnsafeBytes { raw throws(ParseError) in
                        try CharacteristicDeclaration(parsingAll: raw, baseOffset: 0)
                    }
                } catch {
                    throw .malformedResponse(request: .readByTypeRequest, error)
                }
                found.append(GATTCharacteristic(uuid: declaration.uuid, declarationHandle: entry.handle,
                                                valueHandle: declaration.valueHandle, properties: declaration.properties,
                                                endHandle: service.endHandle))
                lastHandle = entry.handle
            }
            if lastHandle == 0xFFFF { break }
            start = lastHandle + 1
        }
        for index in found.indices.dropLast() {
            found[index].endHandle = found[index + 1].declarationHandle - 1
        }
        return found
    }

    /// Discover All Characteristic Descriptors (§4.7.1): Find Information from the handle after
    /// the value to the characteristic's end.
    public func discoverDescriptors(of characteristic: GATTCharacteristic) throws(GATTError) -> [GATTDescriptor] {
        var found: [GATTDescriptor] = []
        guard characteristic.valueHandle < characteristic.endHandle else { return found }
        var start = characteristic.valueHandle + 1
        while start <= characteristic.endHandle {
            let response: ATTFindInformationResponse
            do throws(GATTError) {
                let pdu = try transact(ATTFindInformationRequest(range: ATTHandleRange(start: start, end: characteristic.endHandle)))
                guard case .findInformationResponse(let list) = pdu else { throw unexpected(pdu) }
                response = list
            } catch {
                if case .attError(_, _, .attributeNotFound) = error { break }
                throw error
            }
            var lastHandle = start
            for entry in response.entries {
                guard entry.handle >= start, entry.handle <= characteristic.endHandle else {
                    throw protocolError("descriptor at handle \(entry.handle) outside \(start)…\(characteristic.endHandle)")
                }
                found.append(GATTDescriptor(uuid: entry.type, handle: entry.handle))
                lastHandle = entry.handle
            }
            if lastHandle == 0xFFFF { break }
            start = lastHandle + 1
        }
        return found
    }

    /// Every primary service with its characteristics and their descriptors.
    public func discoverAll() throws(GATTError) -> GATTDatabase {
        var services = try discoverPrimaryServices()
        for s in services.indices {
            services[s].characteristics = try discoverCharacteristics(of: services[s])
            for c in services[s].characteristics.indices {
                services[s].characteristics[c].descriptors = try discoverDescriptors(of: services[s].characteristics[c])
            }
        }
        return GATTDatabase(services: services)
    }

    func unexpected(_ pdu: ATTPDU) -> GATTError {
        protocolError("unexpected \(pdu.opcode)")
    }

    func protocolError(_ what: String) -> GATTError {
        violation(what)
    }
}
