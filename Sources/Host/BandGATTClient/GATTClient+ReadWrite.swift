import BandATT
import BandWire

extension GATTClient {
    /// Read Characteristic Value / Read Long Characteristic Value (Core 5.4 Vol 3 Part G §4.8.1,
    /// §4.8.3): a Read Request, then Read Blob Requests at growing offsets while each part fills
    /// the PDU, up to the 512-byte attribute maximum. "Attribute Not Long" or "Invalid Offset"
    /// on a blob read ends a value that was exactly one PDU long.
    public func read(_ handle: UInt16) throws(GATTError) -> [UInt8] {
        let first = try transact(ATTReadRequest(handle: handle))
        guard case .readResponse(let response) = first else { throw unexpected(first) }
        var value = response.value.array
        var partLength = value.count
        while partLength == mtu - 1, value.count < ATT.maximumAttributeValueLength {
            let pdu: ATTPDU
            do throws(GATTError) {
                pdu = try transact(ATTReadBlobRequest(handle: handle, valueOffset: UInt16(value.count)))
            } catch {
                if case .attError(_, _, let code) = error, code == .attributeNotLong || code == .invalidOffset { break }
                throw error
            }
            guard case .readBlobResponse(let part) = pdu else { throw unexpected(pdu) }
            guard value.count + part.partValue.count <= ATT.maximumAttributeValueLength else {
                throw protocolError("long value exceeds \(ATT.maximumAttributeValueLength) bytes")
            }
            value += part.partValue.array
            partLength = part.partValue.count
        }
        return value
    }

    /// Write Characteristic Value (§4.9.3): a Write Request, answered by a Write Response.
    public func write(_ value: [UInt8], to handle: UInt16) throws(GATTError) {
        let attribute = try attributeValue(value)
        let response = try transact(ATTWriteRequest(handle: handle, value: attribute))
        guard case .writeResponse = response else { throw unexpected(response) }
    }

    /// Write Without Response (§4.9.1): a Write Command; nothing comes back, not even an error.
    public func writeWithoutResponse(_ value: [UInt8], to handle: UInt16) throws(GATTError) {
        try sendUnacknowledged(ATTWriteCommand(handle: handle, value: try attributeValue(value)))
    }

    private func attributeValue(_ value: [UInt8]) throws(GATTError) -> AttributeBytes {
        let limit = mtu - 3
        guard value.count <= limit else { throw .valueTooLong(length: value.count, limit: limit) }
        return AttributeBytes(value)
    }
}
