import BandLink

/// Where a band waits for readers: a Unix `SOCK_SEQPACKET` socket, or (in `bandsim serve
/// --hci`) an L2CAP ATT channel on a BlueZ controller.
public protocol BandListener: AnyObject {
    var pollDescriptor: Int32 { get }
    /// A waiting connection, or nil when none is pending (never blocks).
    func acceptLink() throws(LinkError) -> (any ATTBearer)?
    /// Called when the band's connection ended, e.g. to advertise again.
    func connectionEnded()
    func close()
}

extension SeqPacketListener: BandListener {
    public func acceptLink() throws(LinkError) -> (any ATTBearer)? {
        try accept(timeout: .zero)
    }

    public func connectionEnded() {}
}
