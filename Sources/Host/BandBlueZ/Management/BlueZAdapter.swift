import BandKitSystem
import BandLink
import BandWire

/// One Bluetooth adapter (`hci0`, …) driven through the management socket, as `btmgmt` and
/// bluetoothd do: settings, advertising, keys.
public final class BlueZAdapter {
    public let index: UInt16
    public let management: ManagementSocket

    /// The IO capability BandKit declares: no display, no keyboard, so pairing is Just Works
    /// (Core 5.4 Vol 3 Part H §2.3.5.1).
    public static let noInputNoOutput: UInt8 = 0x03
    /// Declared when the user can type a passkey the peer displays: against a DisplayOnly or
    /// KeyboardDisplay peer SMP then chooses passkey entry (we type), against NoInputNoOutput
    /// still Just Works, and never numeric comparison (which would need a display here).
    public static let keyboardOnly: UInt8 = 0x02
    /// IO capability DisplayOnly: a peer with a keyboard makes SMP use passkey entry, the kernel
    /// picks the passkey and reports it in Passkey Notify (a PineTime's screen).
    public static let displayOnly: UInt8 = 0x00

    public init(_ name: String, management: ManagementSocket? = nil, system: SystemCalls = .live) throws(LinkError) {
        do throws(AddressSyntaxError) { index = try AdapterName.index(of: name) } catch {
            throw .system(error.description, .noSuchDevice)
        }
        if let management {
            self.management = management
        } else {
            self.management = try ManagementSocket(system: system)
        }
    }

    public var name: String { "hci\(index)" }

    public func information() throws(LinkError) -> ControllerInformation {
        let reply = try management.perform(.readControllerInformation, controllerIndex: index)
        do throws(ParseError) { return try ControllerInformation(parsingAll: reply) } catch {
            throw .system("mgmt Read Controller Information on \(name): \(error)", Errno(rawValue: 74))
        }
    }

    /// The adapter's own address (what L2CAP sockets bind to).
    public func address() throws(LinkError) -> BluetoothAddress { try information().address }

    @discardableResult
    public func setPowered(_ on: Bool) throws(LinkError) -> AdapterSettings {
        try settings(after: .setPowered, on, timeout: .seconds(10))
    }

    @discardableResult
    public func setLowEnergy(_ on: Bool) throws(LinkError) -> AdapterSettings { try settings(after: .setLowEnergy, on) }

    @discardableResult
    public func setConnectable(_ on: Bool) throws(LinkError) -> AdapterSettings { try settings(after: .setConnectable, on) }

    @discardableResult
    public func setBondable(_ on: Bool) throws(LinkError) -> AdapterSettings { try settings(after: .setBondable, on) }

    public func setIOCapability(_ capability: UInt8) throws(LinkError) {
        try management.perform(.setIOCapability, controllerIndex: index, parameters: [capability])
    }

    /// What `btmgmt power off; le on; bondable on; connectable on; power on` does, skipping
    /// whatever is already set; declares NoInputNoOutput so pairing is Just Works.
    /// Returns the settings in force afterwards.
    @discardableResult
    public func prepareForLowEnergy() throws(LinkError) -> AdapterSettings {
        let wanted: AdapterSettings = [.powered, .lowEnergy, .bondable, .connectable]
        var current = try information().currentSettings
        if current.isSuperset(of: wanted) { return current }
        if current.contains(.powered) { current = try setPowered(false) }
        if !current.contains(.lowEnergy) { current = try setLowEnergy(true) }
        if !current.contains(.bondable) { current = try setBondable(true) }
        if !current.contains(.connectable) { current = try setConnectable(true) }
        try setIOCapability(Self.noInputNoOutput)
        return try setPowered(true)
    }

    /// Turns LE Secure Connections on (Set Secure Connections, `btmgmt sc on`) when the controller
    /// supports it and it is off. Without bluetoothd nobody else does (the kernel starts with it
    /// off), and a device that refuses legacy pairing (the band on its own host, a PineTime)
    /// cannot pair otherwise. Returns true when it turned it on.
    @discardableResult
    public func enableSecureConnections() throws(LinkError) -> Bool {
        let information = try information()
        guard information.supportedSettings.contains(.secureConnections), !information.currentSettings.contains(.secureConnections) else {
            return false
        }
        let settings = try settings(after: .setSecureConnections, true)
        guard settings.contains(.secureConnections) else {
            throw .system("mgmt Set Secure Connections on \(name): still off (settings: \(settings))", .notSupported)
        }
        return true
    }

    /// Starts advertising `advertisement` (replacing an instance with the same number).
    public func startAdvertising(_ advertisement: Advertisement) throws(LinkError) {
        let parameters: [UInt8]
        do throws(EncodeError) { parameters = try advertisement.addAdvertisingParameters() } catch {
            throw .system("mgmt Add Advertising on \(name): advertising data too long (\(error))", .invalidArgument)
        }
        _ = try? management.perform(.removeAdvertising, controllerIndex: index, parameters: [advertisement.instance])
        try management.perform(.addAdvertising, controllerIndex: index, parameters: parameters)
    }

    /// The advertising instances the kernel holds for this adapter (Read Advertising Features:
    /// Supported_Flags (4), Max_Adv_Data_Len, Max_Scan_Rsp_Len, Max_Instances, Num_Instances,
    /// then one byte per instance).
    public func advertisingInstances() throws(LinkError) -> [UInt8] {
        let reply = try management.perform(.readAdvertisingFeatures, controllerIndex: index)
        guard reply.count >= 8, reply.count == 8 + Int(reply[7]) else {
            throw .system("mgmt Read Advertising Features on \(name): malformed reply of \(reply.count) bytes", Errno(rawValue: 74))
        }
        return Array(reply[8...])
    }

    /// Advertises `advertisement` unless the kernel already holds its instance. The kernel keeps
    /// instances across connections and power cycles and re-enables them itself when a link
    /// ends or the adapter powers up; adding the instance again then is not only useless but
    /// racy: re-added while a power-off is under way, it can leave the controller advertising
    /// with its host closed (seen with btvirt: a central then connects to nobody).
    public func ensureAdvertising(_ advertisement: Advertisement) throws(LinkError) {
        if try advertisingInstances().contains(advertisement.instance) { return }
        try startAdvertising(advertisement)
    }

    /// Stops advertising instance `instance` (0: all instances).
    public func stopAdvertising(instance: UInt8 = 0) throws(LinkError) {
        try management.perform(.removeAdvertising, controllerIndex: index, parameters: [instance])
    }

    /// Replaces the kernel's LE long-term keys for this adapter with `keys` (Load Long Term
    /// Keys clears the previous set), so a bonded peer re-encrypts without pairing again.
    public func loadLongTermKeys(_ keys: [LongTermKey]) throws(LinkError) {
        var parameters: [UInt8] = [UInt8(keys.count & 0xFF), UInt8(keys.count >> 8)]
        for key in keys {
            var bytes = [UInt8](repeating: 0, count: LongTermKey.encodedSize)
            bytes.withUnsafeMutableBytes { raw in
                var writer = ByteWriter(raw)
                key.encode(into: &writer)
            }
            parameters += bytes
        }
        try management.perform(.loadLongTermKeys, controllerIndex: index, parameters: parameters)
    }

    /// Drops the LE link to `peer` (reason Remote User Terminated Connection).
    public func disconnect(_ peer: LEAddress) throws(LinkError) {
        try management.perform(.disconnect, controllerIndex: index, parameters: ManagementEvent.addressParameters(peer), timeout: .seconds(10))
    }

    /// Asks the kernel to connect to `peer` by itself whenever it advertises (Add Device,
    /// auto-connect): a passive scan runs in the controller while any such peer is away, and the
    /// link comes up as a Device Connected event. Kept until ``removeDevice(_:)`` or power-off.
    public func addDevice(_ peer: LEAddress, action: AddDevice.Action = .autoConnect) throws(LinkError) {
        try management.perform(.addDevice, controllerIndex: index, parameters: AddDevice(peer: peer, action: action).parameters)
    }

    /// Takes `peer` off the auto-connect list (its link, if up, stays).
    public func removeDevice(_ peer: LEAddress) throws(LinkError) {
        try management.perform(.removeDevice, controllerIndex: index, parameters: RemoveDevice(peer: peer).parameters)
    }

    /// The LE peers this adapter has a link to now (Get Connections).
    public func connections() throws(LinkError) -> [LEAddress] {
        let reply = try management.perform(.getConnections, controllerIndex: index)
        do throws(ParseError) { return try ConnectionList(parsingAll: reply).peers } catch {
            throw .system("mgmt Get Connections on \(name): \(error)", Errno(rawValue: 74))
        }
    }

    private func settings(after opcode: ManagementOpcode, _ on: Bool, timeout: Duration = .seconds(5)) throws(LinkError) -> AdapterSettings {
        let reply = try management.perform(opcode, controllerIndex: index, parameters: [on ? 1 : 0], timeout: timeout)
        guard reply.count == 4 else {
            throw .system("mgmt \(opcode) on \(name): reply of \(reply.count) bytes, expected Current_Settings (4)", Errno(rawValue: 74))
        }
        return AdapterSettings(rawValue: UInt32(reply[0]) | UInt32(reply[1]) << 8 | UInt32(reply[2]) << 16 | UInt32(reply[3]) << 24)
    }
}
