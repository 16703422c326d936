import BandReader
import BandTrace

extension LEPeer {
    /// The peer a recording of a reader's connection to `address` names in its LE Connection
    /// Complete event: the band's Bluetooth address and type, or, for a simulated band reached
    /// over a Unix socket, the all-zero address (it has none; a replay then names the device
    /// by its Device Information serial number, or by `--device`).
    public init(recording address: BandAddress) {
        switch address {
        case .bluetooth(let device, let type, _):
            let value = device.bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            self.init(addressType: type == .random ? .randomDevice : .publicDevice, address: BandTrace.BluetoothDeviceAddress(value))
        case .simulator:
            self.init(addressType: .randomDevice, address: BandTrace.BluetoothDeviceAddress(0))
        }
    }
}
