import BandATT
import BandHCI
import BandWire

/// What the host advertises and offers; fixed at start-up.
public struct LEHostConfiguration: Sendable {
    /// The advertising data and scan response the controller sends.
    public var advertisingData: AdvertisingPayload
    public var scanResponse: AdvertisingPayload
    public var advertisingParameters: LESetAdvertisingParameters
    /// The ATT_MTU offered in Exchange MTU (bounds the L2CAP buffers too).
    public var attMTU: Int
    /// What the band can show or enter in pairing (SMP IO capability, Core 5.4 Vol 3 Part H
    /// §2.3.2): 0x00 DisplayOnly (a passkey shown), 0x03 NoInputNoOutput (Just Works).
    public var ioCapability: UInt8
    /// Link-layer payload octets to ask for on every link (LE Set Data Length, 27–251), so an
    /// ATT PDU crosses the air in fewer packets; nil: keep the controller's default. A
    /// controller without the feature answers Unknown Command or Unsupported Feature, and the
    /// link simply keeps 27.
    public var dataLengthOctets: UInt16?

    public init(advertisingData: AdvertisingPayload, scanResponse: AdvertisingPayload,
                advertisingParameters: LESetAdvertisingParameters = LESetAdvertisingParameters(),
                attMTU: Int = 247, ioCapability: UInt8 = 0x03, dataLengthOctets: UInt16? = nil) {
        self.advertisingData = advertisingData
        self.scanResponse = scanResponse
        self.advertisingParameters = advertisingParameters
        self.attMTU = max(ATT.defaultLEMTU, min(attMTU, ATT.maximumMTU))
        self.ioCapability = ioCapability
        self.dataLengthOctets = dataLengthOctets
    }

    /// What `bandsim serve` advertises through BlueZ today: Flags and the service UUIDs in the
    /// advertisement, the complete (or shortened) name in the scan response.
    public static func band<C: Collection>(name: UnsafeRawBufferPointer, services: C, attMTU: Int = 247,
                                           ioCapability: UInt8 = 0x03) -> LEHostConfiguration where C.Element == BluetoothUUID {
        var advertising = AdvertisingPayload()
        _ = advertising.appendFlags()
        _ = advertising.appendServiceUUIDs16(services)
        _ = advertising.appendServiceUUIDs128(services)
        var response = AdvertisingPayload()
        _ = response.appendLocalName(name)
        return LEHostConfiguration(advertisingData: advertising, scanResponse: response, attMTU: attMTU, ioCapability: ioCapability)
    }
}
