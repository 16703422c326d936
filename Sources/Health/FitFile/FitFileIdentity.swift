/// The `file_id` message: what the file is and which device wrote it, when.
public struct FitFileIdentity: Hashable, Sendable {
    public var type: Int64?
    public var manufacturer: Int64?
    public var product: Int64?
    public var serialNumber: Int64?
    public var timeCreated: UInt32?
    public var productName: String?

    public init(type: Int64? = nil, manufacturer: Int64? = nil, product: Int64? = nil, serialNumber: Int64? = nil,
                timeCreated: UInt32? = nil, productName: String? = nil) {
        self.type = type
        self.manufacturer = manufacturer
        self.product = product
        self.serialNumber = serialNumber
        self.timeCreated = timeCreated
        self.productName = productName
    }

    init(_ message: FitMessage) {
        self.init(type: message.integer(0), manufacturer: message.integer(1), product: message.integer(2),
                  serialNumber: message.integer(3), timeCreated: FitTime.time(message.integer(4)),
                  productName: message.field(8)?.text)
    }

    var fields: [FitOutField] {
        var fields = [FitOutField(0, .enumeration, .integer(type)), FitOutField(1, .uint16, .integer(manufacturer)),
                      FitOutField(2, .uint16, .integer(product)), FitOutField(3, .uint32z, .integer(serialNumber)),
                      FitOutField(4, .uint32, .integer(timeCreated.map(Int64.init)))]
        if let productName { fields.append(FitOutField(8, .string, .text(productName, size: min(productName.utf8.count + 1, 64)))) }
        return fields
    }

    /// Manufacturer names for the common ids of the profile's `manufacturer` enum.
    public var manufacturerName: String? {
        guard let manufacturer else { return nil }
        return [1: "Garmin", 23: "Suunto", 32: "Wahoo Fitness", 69: "Stages Cycling", 70: "Sigma Sport", 89: "Tacx",
                123: "Polar", 255: "Development", 263: "Coros", 265: "Zwift", 294: "Coros", 319: "Bryton",
                ][manufacturer] ?? "manufacturer \(manufacturer)"
    }
}
