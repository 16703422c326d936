import BandATT
import BandGATT
import BandWire

/// What a Client Characteristic Configuration descriptor asks the server to send
/// (Core 5.4 Vol 3 Part G §3.3.3.3, Table 3.11).
public enum GATTSubscription: UInt16, Sendable {
    case notifications = 0x0001
    case indications = 0x0002
}

extension GATTClient {
    /// Enables notifications or indications of `characteristic` by writing its CCCD (§4.10.1,
    /// §4.11.1). Idempotent per bearer: asking again for what this client already enabled on
    /// this connection sends nothing, so a reconnect loop cannot subscribe twice (the duplicate
    /// callbacks of bleak #83/#2002). Returns whether a write was sent.
    @discardableResult
    public func subscribe(to characteristic: GATTCharacteristic, _ kind: GATTSubscription = .notifications) throws(GATTError) -> Bool {
        let required: CharacteristicProperties = kind == .notifications ? .notify : .indicate
        guard characteristic.properties.contains(required) else {
            throw .notSubscribable(characteristic.uuid, reason: "its properties do not include \(kind == .notifications ? "notify" : "indicate")")
        }
        guard let cccd = characteristic.descriptor(GATTUUID.Descriptor.clientCharacteristicConfiguration) else {
            throw .notSubscribable(characteristic.uuid, reason: "it has no Client Characteristic Configuration descriptor")
        }
        if subscriptions[cccd.handle] == kind.rawValue { return false }
        let configuration: ClientCharacteristicConfiguration = kind == .notifications ? .notifications : .indications
        try write(configuration.encodedBytes(capacity: 2), to: cccd.handle)
        subscriptions[cccd.handle] = kind.rawValue
        return true
    }

    /// Disables notifications and indications of `characteristic` (writes 0x0000 to its CCCD).
    public func unsubscribe(from characteristic: GATTCharacteristic) throws(GATTError) {
        guard let cccd = characteristic.descriptor(GATTUUID.Descriptor.clientCharacteristicConfiguration) else { return }
        guard subscriptions[cccd.handle] != nil else { return }
        try write(ClientCharacteristicConfiguration().encodedBytes(capacity: 2), to: cccd.handle)
        subscriptions[cccd.handle] = nil
    }

    /// Whether this client enabled notifications or indications of `characteristic` on this bearer.
    public func isSubscribed(to characteristic: GATTCharacteristic) -> Bool {
        guard let cccd = characteristic.descriptor(GATTUUID.Descriptor.clientCharacteristicConfiguration) else { return false }
        return subscriptions[cccd.handle] != nil
    }
}
