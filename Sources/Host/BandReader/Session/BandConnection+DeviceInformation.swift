import BandGATTClient

extension BandConnection {
    /// Device name, Device Information strings and battery level (each only if present), read
    /// as ``DeviceInformationMachine`` asks.
    public func readDeviceInformation(report: (ReaderEvent) -> Void) throws(SessionError) -> (device: BandDeviceInfo, batteryPercent: Int?) {
        var machine = DeviceInformationMachine(profile: profile)
        var pending = machine.start()[...]
        while let action = pending.popFirst() {
            switch action {
            case .read(_, let handle):
                let bytes: [UInt8]
                do { bytes = try client.read(handle) } catch {
                    pending = machine.readFailed(.gatt(error, during: .deviceInformation))[...]
                    continue
                }
                pending.insert(contentsOf: machine.valueRead(bytes), at: pending.startIndex)
            case .report(let event):
                report(event)
            case .finished(let device, let battery):
                return (device, battery)
            case .fail(let error):
                throw error
            }
        }
        throw .controlPointProtocol("reading Device Information stopped without finishing")
    }
}
