import BandWire

/// BlueZ's numbering of address types, used by `sockaddr_l2.l2_bdaddr_type` and every
/// management command and event (`<bluetooth/bluetooth.h>`, doc/mgmt-api.txt "Address_Type"):
///
/// | BlueZ value | name               | ``LEAddressType`` (HCI numbering)            |
/// |-------------|--------------------|----------------------------------------------|
/// | 0           | `BDADDR_BREDR`     | none: not an LE address                      |
/// | 1           | `BDADDR_LE_PUBLIC` | `.public` (also what `.publicIdentity` becomes) |
/// | 2           | `BDADDR_LE_RANDOM` | `.random` (also what `.randomIdentity` becomes) |
///
/// The kernel names a peer by its identity address once resolved, so the identity types fold
/// onto plain public/random here, as BlueZ's `le_addr_type()` does.
extension LEAddressType {
    static let bluezBREDR: UInt8 = 0
    static let bluezLEPublic: UInt8 = 1
    static let bluezLERandom: UInt8 = 2

    /// The BlueZ socket/management value for this type.
    var bluezAddressType: UInt8 { isRandom ? Self.bluezLERandom : Self.bluezLEPublic }

    /// The LE type a BlueZ value stands for; nil for `BDADDR_BREDR` and undefined values.
    static func fromBlueZ(_ value: UInt8) -> LEAddressType? {
        switch value {
        case bluezLEPublic: return .public
        case bluezLERandom: return .random
        default: return nil
        }
    }
}

extension ByteCursor {
    /// Reads a management Address_Type that must name an LE address.
    mutating func readBlueZLEAddressType(_ field: StaticString) throws(ParseError) -> LEAddressType {
        let value = try readUInt8(field)
        guard let type = LEAddressType.fromBlueZ(value) else { throw ParseError(.invalidValue, at: offset - 1, field: field) }
        return type
    }
}
