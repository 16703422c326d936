import BandReader

/// One device the gateway keeps synced: its keystore address and what the keystore says of it.
public struct GatewayDevice: Equatable, Sendable {
    /// `BandAddress.keystoreKey`: `AA:BB:CC:DD:EE:FF` or `sim:PATH`.
    public var address: String
    public var kind: BandKind
    /// The person its readings belong to (nil: the store's default person).
    public var person: String?
    /// Whether the keystore holds it (false: named with `--device` and never paired, e.g. a strap).
    public var paired: Bool

    public init(address: String, kind: BandKind, person: String?, paired: Bool) {
        self.address = address
        self.kind = kind
        self.person = person
        self.paired = paired
    }

    public init(_ band: PairedBand) {
        self.init(address: band.address, kind: band.kind, person: band.person, paired: true)
    }

    /// "hr-strap of alice", for log lines.
    public var summary: String {
        (paired ? kind.rawValue : "unpaired device") + (person.map { " of \($0)" } ?? "")
    }
}

/// Which keystore entries a gateway serves: all, the `--device` addresses, or one `--person`'s.
public struct GatewaySelection: Sendable {
    public var addresses: [String]
    public var person: String?

    public init(addresses: [String] = [], person: String? = nil) {
        self.addresses = addresses
        self.person = person
    }

    /// The devices to serve given the keystore's entries. A `--device` address the keystore does
    /// not hold is served unpaired unless it was paired earlier in this run (`forgotten`): then
    /// `band forget` dropped it and it stays dropped.
    public func devices(from bands: [PairedBand], forgotten: Set<String>) -> [GatewayDevice] {
        var chosen = bands.filter { band in
            (addresses.isEmpty || addresses.contains(band.address)) && (person == nil || band.person == person)
        }.map(GatewayDevice.init)
        let paired = Set(bands.map(\.address))
        for address in addresses where !paired.contains(address) && !forgotten.contains(address) && person == nil {
            chosen.append(GatewayDevice(address: address, kind: .other, person: nil, paired: false))
        }
        return chosen
    }
}
