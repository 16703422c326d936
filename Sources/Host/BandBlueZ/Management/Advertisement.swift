import BandWire

/// What the simulated band advertises, as an Add Advertising command (BlueZ doc/mgmt-api.txt,
/// command 0x003E). The kernel schedules the instance and picks legacy or extended
/// advertising commands for the controller itself.
///
/// | offset | size | field                                              |
/// |--------|------|----------------------------------------------------|
/// | 0      | 1    | Instance (1…)                                      |
/// | 1      | 4    | Flags, LE (bit 0: switch into connectable mode)    |
/// | 5      | 2    | Duration (s), LE; 0 = default                      |
/// | 7      | 2    | Timeout (s), LE; 0 = none                          |
/// | 9      | 1    | Adv_Data_Len *a*                                   |
/// | 10     | 1    | Scan_Rsp_Len *s*                                   |
/// | 11     | *a*  | Adv_Data (``AdvertisingData``)                     |
/// | 11+*a* | *s*  | Scan_Rsp                                           |
///
/// The Flags AD is ours (general discoverable, no BR/EDR), so the kernel's managed-flags
/// and discoverable bits stay clear (it refuses a Flags AD when it manages them). Legacy
/// advertising PDUs hold 31 bytes each; ``init(name:serviceUUIDs:instance:)`` puts the
/// service UUIDs in the advertisement and the name in the scan response to fit both
/// 0x180D and a 128-bit UUID.
public struct Advertisement: Hashable, Sendable {
    public static let legacyCapacity = 31
    /// Flags bit 0: make the controller connectable while this instance advertises.
    public static let connectableFlag: UInt32 = 1 << 0

    public var instance: UInt8
    public var flags: UInt32
    public var advertisingData: AdvertisingData
    public var scanResponse: AdvertisingData

    public init(instance: UInt8 = 1, flags: UInt32 = Advertisement.connectableFlag,
                advertisingData: AdvertisingData, scanResponse: AdvertisingData) {
        self.instance = instance
        self.flags = flags
        self.advertisingData = advertisingData
        self.scanResponse = scanResponse
    }

    /// A connectable band: flags + service UUIDs in the advertisement, complete name in the scan response.
    public init(name: String, serviceUUIDs: [BluetoothUUID], instance: UInt8 = 1) {
        self.init(instance: instance,
                  advertisingData: AdvertisingData(flags: [.leGeneralDiscoverable, .brEDRNotSupported], serviceUUIDs: serviceUUIDs),
                  scanResponse: AdvertisingData(localName: name))
    }

    /// The Add Advertising parameters; fails (naming the part) when either payload exceeds 31 bytes.
    public func addAdvertisingParameters() throws(EncodeError) -> [UInt8] {
        for payload in [advertisingData, scanResponse] {
            guard payload.encodedSize <= Self.legacyCapacity, payload.structures.allSatisfy({ $0.data.count <= 254 }) else {
                throw EncodeError(needed: payload.encodedSize, capacity: Self.legacyCapacity)
            }
        }
        let a = advertisingData.encodedSize, s = scanResponse.encodedSize
        var out = [UInt8](repeating: 0, count: 11 + a + s)
        let written: Result<Int, EncodeError> = out.withUnsafeMutableBytes { raw in
            var writer = ByteWriter(raw)
            writer.writeUInt8(instance)
            writer.writeUInt32LE(flags)
            writer.writeUInt16LE(0)
            writer.writeUInt16LE(0)
            writer.writeUInt8(UInt8(a))
            writer.writeUInt8(UInt8(s))
            advertisingData.encode(into: &writer)
            scanResponse.encode(into: &writer)
            do throws(EncodeError) { return .success(try writer.finish()) } catch { return .failure(error) }
        }
        _ = try written.get()
        return out
    }
}
