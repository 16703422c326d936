import BandKitSystem
import BandLink
import BandWire

/// The reader's side in one place: what `band scan`, `band pair`, `band sync` and
/// `band stream` need from BlueZ.
///
/// ```swift
/// let link = try BlueZCentral.connect(to: LEAddress(address, type: .public), adapter: "hci1",
///                                     keyFile: LongTermKeyStore.defaultPath(), log: { print($0) })
/// // link is an ATTBearer at security medium: paired (Just Works, confirmed by our agent)
/// // or re-encrypted with a stored key.
/// ```
public enum BlueZCentral {
    /// Powers `adapter` up for LE if needed, loads the stored keys, and connects to `peer` on
    /// the ATT channel at `security` (medium by default: the kernel pairs or encrypts with a
    /// stored key before `connect` returns). Without bluetoothd, the returned link's agent
    /// confirms Just Works and writes the new keys to `keyFile`.
    public static func connect(to peer: LEAddress, adapter: String, security: SecurityLevel = .medium,
                               keyFile: String?, timeout: Duration = .seconds(30),
                               log: @escaping (String) -> Void = { _ in },
                               system: SystemCalls = .live) throws(LinkError) -> L2CAPATTLink {
        let bluez = try BlueZAdapter(adapter, system: system)
        try bluez.prepareForLowEnergy()
        let agent = try PairingAgent(adapter: bluez, keyStore: try keyStore(keyFile, system: system), log: log)
        if keyFile != nil { try agent.restoreKeys() }
        return try L2CAPATTLink.connect(to: peer, from: agent.adapterAddress, security: security, timeout: timeout,
                                        agent: agent, system: system)
    }

    /// Scans on `adapter` for up to `duration`, returning the devices that advertise any of
    /// `services` (all devices when empty), merged per address, strongest signal first.
    public static func scan(adapter: String, for duration: Duration, services: [BluetoothUUID] = [],
                            system: SystemCalls = .live) throws(LinkError) -> [DiscoveredDevice] {
        let bluez = try BlueZAdapter(adapter, system: system)
        try bluez.prepareForLowEnergy()
        let scanner = try LEScanner(adapter: adapter, system: system)
        defer { scanner.close() }
        let devices = try Discovery.scan(scanner, for: duration)
        return devices
            .filter { device in services.isEmpty || services.contains(where: device.advertises) }
            .sorted { ($0.rssi ?? -128) > ($1.rssi ?? -128) }
    }

    static func keyStore(_ path: String?, system: SystemCalls) throws(LinkError) -> LongTermKeyStore? {
        guard let path else { return nil }
        // Create the key file's directory and any missing parents, private (0700).
        var prefix = ""
        for component in path.split(separator: "/").dropLast() {
            prefix += "/" + component
            guard path.hasPrefix("/") else { break }
            try SocketPath.prepareDirectory(prefix, system: system)
        }
        return LongTermKeyStore(path: path, system: system)
    }
}
