import BandWire

/// What a scan learned about one advertiser, merged over its advertisements and scan responses.
public struct DiscoveredDevice: Hashable, Sendable {
    public var address: LEAddress
    public var name: String?
    /// The most recent RSSI (dBm).
    public var rssi: Int8?
    /// Union of the service UUIDs advertised, in order of first appearance.
    public var serviceUUIDs: [BluetoothUUID]
    public var isConnectable: Bool
    public var reportCount: Int

    public init(address: LEAddress) {
        self.address = address
        self.serviceUUIDs = []
        self.isConnectable = false
        self.reportCount = 0
    }

    /// Folds one more report for this address in. A complete name beats a shortened one.
    public mutating func merge(_ report: AdvertisingReport) {
        reportCount += 1
        if let rssi = report.rssi { self.rssi = rssi }
        if let name = report.data.localName, report.data.isLocalNameComplete || self.name == nil { self.name = name }
        for uuid in report.data.serviceUUIDs where !serviceUUIDs.contains(uuid) { serviceUUIDs.append(uuid) }
        if !report.isScanResponse { isConnectable = report.isConnectable }
    }

    public func advertises(_ uuid: BluetoothUUID) -> Bool { serviceUUIDs.contains(uuid) }
}
