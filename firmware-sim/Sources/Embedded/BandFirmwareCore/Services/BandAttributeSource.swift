import BandATT
import BandGATT
import BandGATTServer
import BandProtocol
import BandWire

/// The band's static attribute table (``BandAttributeTable``) as the attribute source of the
/// one GATT server: values computed from the band's state as this connection may see them,
/// permissions from the characteristic table (authentication for the band's own activity
/// service), writes applied to the band with what they cause (``FollowUp``) handed back.
struct BandAttributeSource<Host: BandServiceHost>: GATTAttributeSource {
    typealias WriteEffect = FollowUp
    let band: BandServices<Host>

    init(services: BandServices<Host>) { band = services }

    var attributeCount: Int { Int(BandAttributeTable.lastHandle) }

    func attribute(at index: Int) -> GATTServerAttribute {
        let attribute = BandAttributeTable.attribute(at: index)
        if case .primaryService(let uuid) = attribute.role {
            return GATTServerAttribute(handle: attribute.handle, type: attribute.type, serviceUUID: uuid, groupEnd: attribute.serviceEnd)
        }
        return GATTServerAttribute(handle: attribute.handle, type: attribute.type)
    }

    /// Handles run 1…lastHandle without gaps: index = handle − 1.
    func firstIndex(atOrAfter handle: UInt16) -> Int { min(max(Int(handle), 1) - 1, attributeCount) }

    func withValue<R>(at index: Int, _ body: (UnsafeRawBufferPointer) -> R) throws(ATTErrorCode) -> R {
        let attribute = BandAttributeTable.attribute(at: index)
        if let refusal = band.readRefusal(attribute) { throw refusal }
        var writer = ByteWriter(band.valueBuffer)
        band.writeValue(of: attribute, into: &writer)
        return body(writer.written)
    }

    func write(_ value: UnsafeRawBufferPointer, at index: Int, withResponse: Bool) throws(ATTErrorCode) -> FollowUp {
        switch band.writeValue(value, to: BandAttributeTable.attribute(at: index), withResponse: withResponse) {
        case .refused(let error): throw error
        case .accepted(let followUp): return followUp
        }
    }
}

extension BandServices {
    /// Why `attribute` may not be read on this connection, or nil.
    func readRefusal(_ attribute: BandAttributeTable.Attribute) -> ATTErrorCode? {
        switch attribute.role {
        case .primaryService, .declaration:
            return nil
        case .value(let characteristic):
            if characteristic.requiresAuthentication, connection?.authenticated != true { return BandServiceConstants.notAuthenticated }
            return characteristic.properties.contains(.read) ? nil : .readNotPermitted
        case .configuration(let characteristic):
            if characteristic.requiresAuthentication, connection?.authenticated != true { return BandServiceConstants.notAuthenticated }
            return nil
        }
    }
}
