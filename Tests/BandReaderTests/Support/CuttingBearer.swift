import BandLink

/// A reader-side link that hangs up after the band's `limit`-th PDU has arrived, as a radio link
/// lost at that exact point: the PDU is delivered, then nothing more, ever.
final class CuttingBearer: ATTBearer {
    private let link: any ATTBearer
    private let limit: Int
    private(set) var received = 0

    init(_ link: any ATTBearer, after limit: Int) {
        self.link = link
        self.limit = limit
    }

    var mtu: Int {
        get { link.mtu }
        set { link.mtu = newValue }
    }

    var pollDescriptor: Int32? { link.pollDescriptor }

    func send(_ pdu: UnsafeRawBufferPointer) throws(LinkError) {
        guard received < limit else { throw .closed }
        try link.send(pdu)
    }

    func receive(into buffer: UnsafeMutableRawBufferPointer, timeout: Duration?) throws(LinkError) -> Int? {
        guard received < limit else {
            link.close()
            throw .closed
        }
        let count = try link.receive(into: buffer, timeout: timeout)
        if count != nil { received += 1 }
        return count
    }

    func close() { link.close() }
}
