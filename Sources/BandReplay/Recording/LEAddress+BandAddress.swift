import BandReader
import BandTrace
import BandWire

extension LEAddress {
    /// The peer a recording of a reader's connection to `address` names in its LE Connection
    /// Complete event: the band's Bluetooth address and type, or, for a simulated band reached
    /// over a Unix socket, the all-zero address (it has none; a replay then names the device
    /// by its Device Information serial number, or by `--device`).
    public init(recording address: BandAddress) {
        switch address {
        case .bluetooth(let device, _):
            self = device
        case .simulator:
            self.init(.any, type: .random)
        }
    }
}
