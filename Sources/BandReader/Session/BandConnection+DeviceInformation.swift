import BandGATT
import BandGATTClient
import BandProtocol
import BandWire

extension BandConnection {
    /// Device name, Device Information strings and battery level (each only if present).
    public func readDeviceInformation(report: (ReaderEvent) -> Void) throws(SessionError) -> (device: BandDeviceInfo, batteryPercent: Int?) {
        typealias C = GATTUUID.Characteristic
        func string(_ characteristic: GATTCharacteristic?) throws(SessionError) -> String? {
            guard let characteristic, characteristic.properties.contains(.read) else { return nil }
            let bytes = try read(characteristic, during: .deviceInformation)
            do { return try DeviceInformationString(parsingAll: bytes).string } catch {
                report(.anomaly("\(characteristic.uuid) is not UTF-8: \(error)"))
                return nil
            }
        }
        var device = BandDeviceInfo()
        device.name = try string(profile.deviceName)
        device.manufacturer = try string(profile.deviceInformation[C.manufacturerNameString])
        device.model = try string(profile.deviceInformation[C.modelNumberString])
        device.serialNumber = try string(profile.deviceInformation[C.serialNumberString])
        device.hardwareRevision = try string(profile.deviceInformation[C.hardwareRevisionString])
        device.firmwareRevision = try string(profile.deviceInformation[C.firmwareRevisionString])
        device.softwareRevision = try string(profile.deviceInformation[C.softwareRevisionString])
        var battery: Int?
        if let level = profile.batteryLevel, level.properties.contains(.read) {
            let bytes = try read(level, during: .deviceInformation)
            do { battery = Int(try BatteryLevel(parsingAll: bytes).percent) } catch {
                report(.anomaly("battery level \(Hex.encode(bytes)) is malformed: \(error)"))
            }
        }
        return (device, battery)
    }
}
