/// What a band says about itself in its Device Information service (0x180A), plus its name.
///
/// Becomes the store's device description of every sample written from this band, and the
/// device part of each sample's sync identifier (`deviceIdentifier`).
public struct BandDeviceInfo: Codable, Equatable, Sendable {
    public var name: String?
    public var manufacturer: String?
    public var model: String?
    public var serialNumber: String?
    public var hardwareRevision: String?
    public var firmwareRevision: String?
    public var softwareRevision: String?

    public init(name: String? = nil, manufacturer: String? = nil, model: String? = nil, serialNumber: String? = nil,
                hardwareRevision: String? = nil, firmwareRevision: String? = nil, softwareRevision: String? = nil) {
        self.name = name
        self.manufacturer = manufacturer
        self.model = model
        self.serialNumber = serialNumber
        self.hardwareRevision = hardwareRevision
        self.firmwareRevision = firmwareRevision
        self.softwareRevision = softwareRevision
    }

    enum CodingKeys: String, CodingKey {
        case name, manufacturer, model, serialNumber = "serial_number", hardwareRevision = "hardware_revision"
        case firmwareRevision = "firmware_revision", softwareRevision = "software_revision"
    }

    /// A stable identity for sync identifiers: the serial number when the band has one (it survives
    /// a change of address, e.g. a resolvable private address), else the address it was reached at.
    public func deviceIdentifier(address: String) -> String {
        if let serialNumber, !serialNumber.isEmpty {
            return [manufacturer, model, serialNumber].compactMap { $0 }.joined(separator: "/")
        }
        return address
    }
}
